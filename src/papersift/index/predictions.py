"""Predicted topics, kept in their own table of the store's database, apart from source labels.

`predicted_topics` holds one row per paper without a source area; `predicted_topics_meta`
names the model version the rows came from and the last store seq they cover, so a
later run knows whether to recompute everything (model or labels changed) or only the
papers ingested since, and a revision counted up by every write, so the keyword index
(which indexes predicted topics for filters and facets) knows when to catch up.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

import orjson

from papersift.record import PAPER_FIELDS, Paper
from papersift.store import DB_FILE, connect_readonly
from papersift.throttle import RECHECK_S, Throttle

SCHEMA = """
CREATE TABLE IF NOT EXISTS predicted_topics (
    paper_id TEXT PRIMARY KEY,
    area TEXT NOT NULL,
    subarea TEXT,
    confidence REAL NOT NULL,
    area_confidence REAL NOT NULL,
    alternatives TEXT NOT NULL,
    model_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS predicted_topics_area ON predicted_topics(area, subarea);
CREATE TABLE IF NOT EXISTS predicted_topics_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class StoredPrediction:
    paper_id: str
    area: str
    subarea: str | None
    confidence: float
    area_confidence: float
    alternatives: tuple[tuple[str, float], ...]
    model_version: str

    @property
    def topic(self) -> str:
        return f"{self.area} · {self.subarea}" if self.subarea else self.area


class PredictionStore:
    """Reads and writes the predicted-topics table in DATA_DIR/papers.sqlite3."""

    def __init__(self, data_dir: str | Path, readonly: bool = False):
        self.path = Path(data_dir) / DB_FILE
        if not self.path.exists():
            raise FileNotFoundError(f"no papersift store at {self.path}; run 'papersift ingest' first")
        self.readonly = readonly
        self._table_seen = False
        self._recheck = Throttle(RECHECK_S)
        if readonly:
            self.conn = connect_readonly(self.path)
        else:
            self.conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            self.conn.executescript(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PredictionStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _has_table(self) -> bool:
        """Whether the store has predictions. Read-only (serving, every results page): a table
        once found is kept (it is never dropped), and its absence is asked again at most every
        RECHECK_S seconds."""
        if self._table_seen:
            return True
        if self.readonly and not self._recheck.due():
            return False
        row = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='predicted_topics'"
        ).fetchone()
        self._table_seen = row is not None
        return self._table_seen

    # -- meta ------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        if not self._has_table():
            return {}
        return dict(self.conn.execute("SELECT key, value FROM predicted_topics_meta"))

    def model_version(self) -> str | None:
        return self.meta().get("model_version")

    def last_seq(self) -> int:
        return int(self.meta().get("last_seq", 0))

    # -- writing ---------------------------------------------------------------------
    def write(self, predictions: Iterable[StoredPrediction], model_version: str, last_seq: int,
              replace_all: bool, drop_ids: Sequence[str] = ()) -> int:
        """Store predictions in one transaction; `replace_all` first clears every older row."""
        rows = [
            (p.paper_id, p.area, p.subarea, p.confidence, p.area_confidence,
             orjson.dumps([list(pair) for pair in p.alternatives]).decode(), model_version)
            for p in predictions
        ]
        with self.conn:
            revision = int(self.meta().get("revision", 0)) + 1
            if replace_all:
                self.conn.execute("DELETE FROM predicted_topics")
            self.conn.executemany("DELETE FROM predicted_topics WHERE paper_id=?", [(i,) for i in drop_ids])
            self.conn.executemany("INSERT OR REPLACE INTO predicted_topics VALUES (?,?,?,?,?,?,?)", rows)
            self.conn.executemany(
                "INSERT OR REPLACE INTO predicted_topics_meta (key, value) VALUES (?, ?)",
                [("model_version", model_version), ("last_seq", str(last_seq)), ("revision", str(revision))],
            )
        return len(rows)

    def stamp(self) -> str:
        """Names the table's current content ("" when there are no predictions): model version
        and write revision. The keyword index records it to notice new predictions."""
        meta = self.meta()
        if "model_version" not in meta:
            return ""
        return f"{meta['model_version']}/{meta.get('revision', 0)}"

    # -- reading ---------------------------------------------------------------------
    def topics(self) -> dict[str, tuple[str, str | None]]:
        """Every prediction's (area, subarea) by paper id: what the keyword index needs."""
        if not self._has_table():
            return {}
        return {paper_id: (area, subarea) for paper_id, area, subarea
                in self.conn.execute("SELECT paper_id, area, subarea FROM predicted_topics")}

    def count(self) -> int:
        if not self._has_table():
            return 0
        return self.conn.execute("SELECT COUNT(*) FROM predicted_topics").fetchone()[0]

    def get_many(self, paper_ids: Sequence[str]) -> dict[str, StoredPrediction]:
        if not self._has_table():
            return {}
        found: dict[str, StoredPrediction] = {}
        for start in range(0, len(paper_ids), 500):
            chunk = list(paper_ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(f"SELECT * FROM predicted_topics WHERE paper_id IN ({marks})", chunk):
                prediction = _from_row(row)
                found[prediction.paper_id] = prediction
        return found

    def topics_of(self, paper_ids: Sequence[str]) -> dict[str, tuple[str, str | None, float]]:
        """(area, subarea, confidence) by paper id: a results page's lookup (a few ids, no JSON to parse)."""
        if not paper_ids or not self._has_table():
            return {}
        marks = ",".join("?" * len(paper_ids))
        query = f"SELECT paper_id, area, subarea, confidence FROM predicted_topics WHERE paper_id IN ({marks})"
        return {paper_id: (area, subarea, confidence)
                for paper_id, area, subarea, confidence in self.conn.execute(query, list(paper_ids))}

    def all(self) -> list[StoredPrediction]:
        if not self._has_table():
            return []
        return [_from_row(row) for row in self.conn.execute("SELECT * FROM predicted_topics ORDER BY paper_id")]


def _from_row(row: tuple) -> StoredPrediction:
    paper_id, area, subarea, confidence, area_confidence, alternatives, model_version = row
    return StoredPrediction(
        paper_id=paper_id, area=area, subarea=subarea, confidence=confidence, area_confidence=area_confidence,
        alternatives=tuple((name, score) for name, score in orjson.loads(alternatives)), model_version=model_version,
    )


Topic = tuple[str, str | None]  # (area, subarea)
# A page copies ~20 papers: rebuilding one from its values takes half of dataclasses.replace's time.
_paper_values = attrgetter(*PAPER_FIELDS)
_AREA_AT, _SUBAREA_AT = PAPER_FIELDS.index("area"), PAPER_FIELDS.index("subarea")


def with_predicted_topic(paper: Paper, predicted: Topic | None) -> Paper:
    """The paper with its source area/subarea, or, when it has none, the predicted ones."""
    if paper.area or predicted is None:
        return paper
    values = list(_paper_values(paper))
    values[_AREA_AT], values[_SUBAREA_AT] = predicted
    return Paper(*values)
