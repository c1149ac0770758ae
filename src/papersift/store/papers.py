"""Store: the papers and source records, written in one transaction per batch and read by
id or in seq order; with the ingest-run ledger and the people tables (its bases)."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from papersift.pausepoints import pause_point
from papersift.record import Paper
from papersift.store.people import PeopleTables
from papersift.store.records import (
    INSERT_PAPER,
    UpsertCounts,
    chunks,
    fold_batch,
    paper_from_row,
    read_catalog,
    resolve,
    row_values,
    write_authors,
)
from papersift.store.runs import IngestRuns
from papersift.store.schema import DB_FILE, MIGRATIONS, WRITE_GENERATION, write_generation


class Store(IngestRuns, PeopleTables):
    """SQLite store of papers in one data directory.

    Safe to share between threads and to open from many processes at once: each thread gets
    its own connection, and every write takes SQLite's write lock for its whole transaction.
    """

    def __init__(self, data_dir: str | Path, readonly: bool = False):
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_FILE
        self.readonly = readonly
        self._local = threading.local()
        self._write_lock = threading.RLock()  # this object's threads write one at a time
        self._run_locks: dict[int, IO[bytes]] = {}
        if not readonly:
            try:
                self.data_dir.mkdir(parents=True, exist_ok=True)
                self._prepare_schema()
            except (OSError, sqlite3.Error) as exc:
                error = self._as_fault(exc, "open the store")
                if error is None:
                    raise
                raise error from exc
        elif not self.path.exists():
            raise FileNotFoundError(f"no papersift store at {self.path}; run 'papersift ingest' first")

    def _prepare_schema(self) -> None:
        MIGRATIONS.ensure(self._conn(), lambda: self._writing("create or upgrade the store"))

    # -- writing ---------------------------------------------------------------------
    def upsert(self, papers: Iterable[Paper]) -> UpsertCounts:
        """Insert, update or merge a batch of papers in one transaction.

        A record seen before with the same content is skipped. A new record whose id
        is unknown but whose normalized title + year + venue match a stored paper is
        merged into that paper (its id becomes an alias), so no paper is doubled.
        Records with one id in one call follow `fold_same_id` (the first wins, later ones
        fill its gaps; one that adds nothing counts as unchanged), as ingest does within a run.

        The batch's catalog (records.read_catalog) is read under the write lock, and the seqs are
        allocated there too, so concurrent writers (threads, Store objects, processes) each
        see the others' commits.
        """
        counts = UpsertCounts()
        batch = fold_batch(papers, counts)
        with self._write_lock, self._writing("store papers") as conn:
            catalog = read_catalog(conn, batch)
            pending, record_rows = resolve(batch, catalog, counts, self._get_exact)
            if record_rows:
                seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
                rows = [row_values(paper, seq + offset) for offset, paper in enumerate(pending.values(), 1)]
                conn.executemany(INSERT_PAPER, rows)
                write_authors(conn, pending.values())
                conn.executemany("INSERT OR REPLACE INTO source_records VALUES (?,?,?)", record_rows)
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (WRITE_GENERATION, str(write_generation(conn) + 1)))
            pause_point("store-before-commit")
        return counts

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

    def written_since(self, record_ids: list[str], seq: int) -> dict[str, Paper]:
        """The papers written after `seq` that hold these record ids (as their own id or merged
        into them), by record id: what an ingest run has already stored of them."""
        found: dict[str, Paper] = {}
        conn = self._conn()
        for chunk in chunks(record_ids):
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(
                    f"SELECT source_records.record_id AS record_id, papers.* FROM source_records"
                    f" JOIN papers ON papers.id = source_records.paper_id"
                    f" WHERE source_records.record_id IN ({marks}) AND papers.seq > ?", [*chunk, seq]):
                found[row["record_id"]] = paper_from_row(row)
        return found

    def iter_papers(self, since_seq: int = 0, batch_size: int = 2000) -> Iterator[tuple[int, Paper]]:
        """(seq, paper) in seq order, for building or updating derived indexes.

        One statement on a connection of its own, so the whole iteration reads one snapshot:
        each paper once, as of the first row read, whatever writers commit meanwhile (their
        papers carry higher seqs, for the next reader). Closing the generator ends the snapshot.
        """
        conn = self._connect()
        try:
            cursor = conn.execute("SELECT * FROM papers WHERE seq > ? ORDER BY seq", (since_seq,))
            while rows := cursor.fetchmany(batch_size):
                for row in rows:
                    yield row["seq"], paper_from_row(row)
        finally:
            conn.close()

    def ids_without_abstract(self) -> list[str]:
        """Title-only papers (listings that carry no abstract)."""
        return [row[0] for row in self._conn().execute("SELECT id FROM papers WHERE abstract IS NULL")]

    def count(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def max_seq(self) -> int:
        return self._conn().execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]

    def source_topics(self) -> list[tuple[str | None, int | None, str, int]]:
        """(venue, year, area, papers) of the papers whose source lists a topic."""
        return self._conn().execute(
            "SELECT venue, year, area, COUNT(*) FROM papers WHERE area IS NOT NULL GROUP BY venue, year, area").fetchall()

    def stats(self) -> dict:
        conn = self._conn()

        def grouped(sql: str) -> dict:
            return {str(key): count for key, count in conn.execute(sql)}

        total = self.count()
        runs = self.runs()
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
            "ingest_runs": len(runs),
            "ingest_runs_by_status": dict(Counter(run["status"] for run in runs)),
            "interrupted_runs": [{key: run[key] for key in ("run_id", "started_at", "paths")}
                                 for run in runs if run["status"] == "interrupted"][-20:],
        }


class ReadOnlyStore:
    """A data dir's store, opened read-only on first call and kept for the process; None while
    the data dir has no store. Thread-safe: query-time readers (search/intent.py, zhnames.py)
    share one connection however many requests ask at once."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = data_dir
        self._store: Store | None = None
        self._lock = threading.Lock()

    def __call__(self) -> Store | None:
        with self._lock:
            if self._store is None:
                try:
                    self._store = Store(self.data_dir, readonly=True)
                except FileNotFoundError:
                    return None
            return self._store
