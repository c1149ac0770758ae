"""The embedded store: SQLite (WAL) is the source of truth for papers and ingest runs.

Every other component (lexical index, vectors, topics) is derived from it and can be
rebuilt from it. Each changed paper gets a new `seq`, so derived indexes update
incrementally by reading the papers whose seq is past the one they last saw.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson

from papersift.record import PAPER_FIELDS, Paper

DB_FILE = "papers.sqlite3"
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    dedupe_key TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    abstract TEXT,
    venue TEXT,
    year INTEGER,
    area TEXT,
    subarea TEXT,
    keywords TEXT NOT NULL,
    url TEXT,
    pdf TEXT,
    status TEXT,
    track TEXT,
    tldr TEXT,
    source TEXT
);
CREATE INDEX IF NOT EXISTS papers_dedupe ON papers(dedupe_key);
CREATE INDEX IF NOT EXISTS papers_seq ON papers(seq);
CREATE INDEX IF NOT EXISTS papers_venue_year ON papers(venue, year);
-- One row per source record id: which paper it landed in and its content hash.
CREATE TABLE IF NOT EXISTS source_records (
    record_id TEXT PRIMARY KEY,
    paper_id TEXT NOT NULL,
    content_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at REAL NOT NULL,
    finished_at REAL,
    paths TEXT NOT NULL,
    status TEXT NOT NULL,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS ingest_errors (
    run_id INTEGER NOT NULL,
    path TEXT NOT NULL,
    location TEXT NOT NULL,
    record_id TEXT,
    problem TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

JSON_LIST_FIELDS = ("authors", "keywords")


@dataclass
class UpsertCounts:
    added: int = 0
    updated: int = 0
    merged: int = 0
    unchanged: int = 0

    def __iadd__(self, other: "UpsertCounts") -> "UpsertCounts":
        self.added += other.added
        self.updated += other.updated
        self.merged += other.merged
        self.unchanged += other.unchanged
        return self

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.merged


@dataclass
class _Catalog:
    """In-memory maps that make upserts O(1) per record without a query each."""

    records: dict[str, tuple[str, str]] = field(default_factory=dict)  # record id -> (paper id, hash)
    paper_keys: dict[str, str] = field(default_factory=dict)  # paper id -> dedupe key
    by_key: dict[str, str] = field(default_factory=dict)  # dedupe key -> paper id


def paper_from_row(row: sqlite3.Row) -> Paper:
    values = {name: row[name] for name in PAPER_FIELDS}
    for name in JSON_LIST_FIELDS:
        values[name] = tuple(orjson.loads(values[name]))
    return Paper(**values)


def _row_values(paper: Paper, seq: int) -> tuple:
    return (
        paper.id, seq, paper.dedupe_key(), paper.content_hash(), paper.title,
        orjson.dumps(list(paper.authors)).decode(), paper.abstract, paper.venue, paper.year,
        paper.area, paper.subarea, orjson.dumps(list(paper.keywords)).decode(), paper.url,
        paper.pdf, paper.status, paper.track, paper.tldr, paper.source,
    )


INSERT_PAPER = (
    "INSERT OR REPLACE INTO papers (id, seq, dedupe_key, content_hash, title, authors, abstract,"
    " venue, year, area, subarea, keywords, url, pdf, status, track, tldr, source)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def merge_papers(base: Paper, extra: Paper, extra_wins: bool) -> Paper:
    """Combine two records of one paper. Empty values never erase filled ones."""
    changes = {}
    for name in PAPER_FIELDS:
        if name == "id":
            continue
        base_value, extra_value = getattr(base, name), getattr(extra, name)
        if extra_value in (None, (), "") or extra_value == base_value:
            continue
        if extra_wins or base_value in (None, (), ""):
            changes[name] = extra_value
    return replace(base, **changes) if changes else base


def connect_readonly(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A read-only connection that works on a read-only mount too.

    mode=ro still needs the WAL's -shm and -wal files, which SQLite cannot create on a
    read-only file system. Without a -wal file there is nothing outside the database file to
    read, so it is then opened as immutable (no locks, no -shm); a database with a -wal file
    is read through it (SQLite reads an existing -shm it cannot write)."""
    conn = None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, check_same_thread=False)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        if conn is not None:
            conn.close()
        wal = Path(f"{path}-wal")
        if not path.exists() or (wal.exists() and wal.stat().st_size) or os.access(path.parent, os.W_OK):
            raise
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)


class Store:
    """SQLite store of papers in one data directory."""

    def __init__(self, data_dir: str | Path, readonly: bool = False):
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_FILE
        self.readonly = readonly
        self._local = threading.local()
        self._catalog: _Catalog | None = None
        if not readonly:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            with self._conn() as conn:
                conn.executescript(SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif not self.path.exists():
            raise FileNotFoundError(f"no papersift store at {self.path}; run 'papersift ingest' first")

    # -- connections -----------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        """One connection per thread (the web server reads from many)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.readonly:
                conn = connect_readonly(self.path)
            else:
                conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.row_factory = sqlite3.Row
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- writing ---------------------------------------------------------------------
    def _load_catalog(self) -> _Catalog:
        if self._catalog is None:
            catalog = _Catalog()
            conn = self._conn()
            for record_id, paper_id, content_hash in conn.execute("SELECT record_id, paper_id, content_hash FROM source_records"):
                catalog.records[record_id] = (paper_id, content_hash)
            for paper_id, key in conn.execute("SELECT id, dedupe_key FROM papers"):
                catalog.paper_keys[paper_id] = key
                catalog.by_key.setdefault(key, paper_id)
            self._catalog = catalog
        return self._catalog

    def upsert(self, papers: Iterable[Paper]) -> UpsertCounts:
        """Insert, update or merge a batch of papers in one transaction.

        A record seen before with the same content is skipped. A new record whose id
        is unknown but whose normalized title + year + venue match a stored paper is
        merged into that paper (its id becomes an alias), so no paper is doubled.
        """
        catalog = self._load_catalog()
        conn = self._conn()
        counts = UpsertCounts()
        pending: dict[str, Paper] = {}
        record_rows: list[tuple[str, str, str]] = []
        seq = self.max_seq()
        try:
            conn.execute("BEGIN IMMEDIATE")
            for paper in papers:
                content_hash = paper.content_hash()
                previous = catalog.records.get(paper.id)
                if previous and previous[1] == content_hash:
                    counts.unchanged += 1
                    continue
                target_id = self._target_for(paper, previous, catalog)
                if target_id is None:
                    stored, counts.added = paper, counts.added + 1
                else:
                    current = pending.get(target_id) or self._get_exact(target_id)
                    stored = merge_papers(current, paper, extra_wins=(target_id == paper.id))
                    if target_id != paper.id:
                        counts.merged += 1
                    elif stored != current:
                        counts.updated += 1
                    else:
                        counts.unchanged += 1
                    if stored == current:
                        stored = None
                if stored is not None:
                    pending[stored.id] = stored
                    catalog.paper_keys[stored.id] = stored.dedupe_key()
                    catalog.by_key.setdefault(stored.dedupe_key(), stored.id)
                resolved_id = target_id or paper.id
                catalog.records[paper.id] = (resolved_id, content_hash)
                record_rows.append((paper.id, resolved_id, content_hash))
            rows = []
            for paper in pending.values():
                seq += 1
                rows.append(_row_values(paper, seq))
            conn.executemany(INSERT_PAPER, rows)
            conn.executemany("INSERT OR REPLACE INTO source_records VALUES (?,?,?)", record_rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            self._catalog = None  # the in-memory maps may hold rolled-back entries
            raise
        return counts

    @staticmethod
    def _target_for(paper: Paper, previous: tuple[str, str] | None, catalog: _Catalog) -> str | None:
        if previous:
            return previous[0]
        if paper.id in catalog.paper_keys:
            return paper.id
        return catalog.by_key.get(paper.dedupe_key())

    def begin_run(self, paths: list[str]) -> int:
        conn = self._conn()
        with conn:
            cursor = conn.execute(
                "INSERT INTO ingest_runs (started_at, paths, status) VALUES (?, ?, 'running')",
                (time.time(), orjson.dumps(paths).decode()),
            )
        return int(cursor.lastrowid)

    def finish_run(self, run_id: int, status: str, summary: dict) -> None:
        with self._conn() as conn:
            conn.execute(
                "UPDATE ingest_runs SET finished_at=?, status=?, summary=? WHERE run_id=?",
                (time.time(), status, orjson.dumps(summary).decode(), run_id),
            )

    def record_errors(self, run_id: int, errors: Iterable[tuple[str, str, str | None, str]]) -> None:
        """errors: (path, location, record id or None, problem)."""
        with self._conn() as conn:
            conn.executemany(
                "INSERT INTO ingest_errors (run_id, path, location, record_id, problem) VALUES (?,?,?,?,?)",
                [(run_id, *error) for error in errors],
            )

    # -- reading ---------------------------------------------------------------------
    def _get_exact(self, paper_id: str) -> Paper | None:
        row = self._conn().execute("SELECT * FROM papers WHERE id=?", (paper_id,)).fetchone()
        return paper_from_row(row) if row else None

    def get(self, paper_id: str) -> Paper | None:
        """A paper by its id or by the id of any source record merged into it."""
        paper = self._get_exact(paper_id)
        if paper is None:
            row = self._conn().execute("SELECT paper_id FROM source_records WHERE record_id=?", (paper_id,)).fetchone()
            if row:
                paper = self._get_exact(row[0])
        return paper

    def get_many(self, paper_ids: list[str]) -> dict[str, Paper]:
        papers: dict[str, Paper] = {}
        conn = self._conn()
        for start in range(0, len(paper_ids), 500):
            chunk = paper_ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(f"SELECT * FROM papers WHERE id IN ({marks})", chunk):
                papers[row["id"]] = paper_from_row(row)
        return papers

    def iter_papers(self, since_seq: int = 0, batch_size: int = 2000) -> Iterator[tuple[int, Paper]]:
        """(seq, paper) in seq order, for building or updating derived indexes."""
        conn = self._conn()
        last = since_seq
        while True:
            rows = conn.execute("SELECT * FROM papers WHERE seq > ? ORDER BY seq LIMIT ?", (last, batch_size)).fetchall()
            if not rows:
                return
            for row in rows:
                yield row["seq"], paper_from_row(row)
            last = rows[-1]["seq"]

    def ids_without_abstract(self) -> list[str]:
        """Title-only papers (listings that carry no abstract)."""
        return [row[0] for row in self._conn().execute("SELECT id FROM papers WHERE abstract IS NULL")]

    def count(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def max_seq(self) -> int:
        return self._conn().execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]

    def run_errors(self, run_id: int) -> list[dict]:
        rows = self._conn().execute(
            "SELECT path, location, record_id, problem FROM ingest_errors WHERE run_id=?", (run_id,)
        ).fetchall()
        return [dict(row) for row in rows]

    def stats(self) -> dict:
        conn = self._conn()

        def grouped(sql: str) -> dict:
            return {str(key): count for key, count in conn.execute(sql)}

        total = self.count()
        return {
            "papers": total,
            "with_abstract": conn.execute("SELECT COUNT(*) FROM papers WHERE abstract IS NOT NULL").fetchone()[0],
            "missing_abstract": conn.execute("SELECT COUNT(*) FROM papers WHERE abstract IS NULL").fetchone()[0],
            "by_venue": grouped("SELECT venue, COUNT(*) FROM papers GROUP BY venue ORDER BY COUNT(*) DESC"),
            "by_year": grouped("SELECT year, COUNT(*) FROM papers GROUP BY year ORDER BY year"),
            "by_venue_year": grouped(
                "SELECT venue || ' ' || year, COUNT(*) FROM papers GROUP BY venue, year ORDER BY venue, year"
            ),
            "by_area": grouped(
                "SELECT area, COUNT(*) FROM papers WHERE area IS NOT NULL GROUP BY area ORDER BY COUNT(*) DESC"
            ),
            "ingest_runs": conn.execute("SELECT COUNT(*) FROM ingest_runs").fetchone()[0],
        }
