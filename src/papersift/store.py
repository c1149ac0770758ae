"""The embedded store: SQLite (WAL) is the source of truth for papers and ingest runs.

Every other component (lexical index, vectors, topics) is derived from it and can be
rebuilt from it. Each changed paper gets a new `seq`, so derived indexes update
incrementally by reading the papers whose seq is past the one they last saw.

Seqs are allocated inside the write transaction, after BEGIN IMMEDIATE has taken SQLite's
write lock (which serializes the writers of every process and thread), so they are unique
(a UNIQUE index enforces it) and increase in commit order: once a reader has seen seq n,
no later commit can bring a paper with a seq at or below n. Every write is one
transaction; a fault (full disk, read-only or missing directory, a lock held too long)
rolls it back whole and raises StoreError with a one-line message.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, cast

import orjson

from papersift import run_locks
from papersift.code_links import code_link
from papersift.names import block_key, full_key
from papersift.pausepoints import pause_point
from papersift.record import PAPER_FIELDS, Paper
from papersift.store_errors import StorageFullError, StoreError, translate

__all__ = ["DB_FILE", "StorageFullError", "Store", "StoreError", "UpsertCounts", "fold_same_id", "merge_papers",
           "paper_from_row"]

DB_FILE = "papers.sqlite3"
# 2: seq is UNIQUE (version 1 stores could hold duplicate seqs; opening renumbers them).
# 3: per-author details (paper_authors), citations, code links, not-accepted submissions.
SCHEMA_VERSION = 3
BUSY_TIMEOUT_S = 30  # how long a writer waits for another one's transaction before giving up
WRITE_GENERATION = "write_generation"  # meta key: bumped by every upsert that writes

TABLES = """
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

INDEXES = """
CREATE INDEX IF NOT EXISTS papers_dedupe ON papers(dedupe_key);
CREATE UNIQUE INDEX IF NOT EXISTS papers_seq_unique ON papers(seq);
CREATE INDEX IF NOT EXISTS papers_venue_year ON papers(venue, year);
DROP INDEX IF EXISTS papers_seq;
"""

# Schema 3, added to version-2 stores by _migrate_to_3 (and to new stores the same way).
SCHEMA3_TABLES = """
ALTER TABLE papers ADD COLUMN author_ids TEXT NOT NULL DEFAULT '[]';
ALTER TABLE papers ADD COLUMN affiliations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE papers ADD COLUMN citations INTEGER;
ALTER TABLE papers ADD COLUMN citations_as_of TEXT;
ALTER TABLE papers ADD COLUMN code_url TEXT;
-- One row per author of a paper, derived from papers.authors/author_ids/affiliations on every
-- write. author_id is the identity that `papersift authors build` assigned (NULL until then).
CREATE TABLE IF NOT EXISTS paper_authors (
    paper_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    block_key TEXT NOT NULL,
    openreview_id TEXT,
    affiliation TEXT,
    author_id TEXT,
    PRIMARY KEY (paper_id, position)
);
CREATE INDEX IF NOT EXISTS paper_authors_name ON paper_authors(name_key);
CREATE INDEX IF NOT EXISTS paper_authors_openreview ON paper_authors(openreview_id);
CREATE INDEX IF NOT EXISTS paper_authors_identity ON paper_authors(author_id);
-- Rejected / withdrawn submissions the listings carry: kept apart so search (which reads
-- papers) stays accepted-only, and venue pages can give acceptance rates.
CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY,
    venue TEXT,
    year INTEGER,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    status TEXT NOT NULL,
    source TEXT
);
CREATE INDEX IF NOT EXISTS submissions_venue_year ON submissions(venue, year);
-- Aggregates computed by `papersift authors build` (venue pages), valid while `stamp` matches.
CREATE TABLE IF NOT EXISTS people_summaries (
    key TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    payload TEXT NOT NULL
);
"""

JSON_LIST_FIELDS = ("authors", "keywords", "author_ids", "affiliations")


@dataclass
class UpsertCounts:
    added: int = 0
    updated: int = 0
    merged: int = 0
    unchanged: int = 0

    def __iadd__(self, other: UpsertCounts) -> UpsertCounts:
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
    """What one upsert batch needs to know of the store, read inside its write transaction.

    Only the batch's own ids and dedupe keys are looked up (indexed queries, a few ms per
    2,000 papers), so memory does not grow with the store: an earlier version kept every
    record id, paper id and dedupe key in dicts (~0.6 KB a paper, ~6 GB at 10 M papers).
    Read under the write lock, it always reflects every other writer's commits.
    """

    records: dict[str, tuple[str, str]] = field(default_factory=dict)  # record id -> (paper id, hash)
    paper_keys: dict[str, str] = field(default_factory=dict)  # paper id -> dedupe key
    by_key: dict[str, str] = field(default_factory=dict)  # dedupe key -> paper id (the oldest paper)


def paper_from_row(row: sqlite3.Row) -> Paper:
    """The paper of a row. A store not yet migrated (opened read-only: a served snapshot, or
    `index` reading a store written by an older papersift) lacks the newer columns: those
    fields keep their defaults until a writer migrates it."""
    try:
        values = {name: row[name] for name in PAPER_FIELDS}
    except IndexError:
        columns = set(row.keys())
        values = {name: row[name] for name in PAPER_FIELDS if name in columns}
    for name in JSON_LIST_FIELDS:
        if name in values:
            values[name] = tuple(orjson.loads(values[name]))
    return Paper(**values)


def _row_values(paper: Paper, seq: int) -> tuple:
    return (
        paper.id, seq, paper.dedupe_key(), paper.content_hash(), paper.title,
        orjson.dumps(list(paper.authors)).decode(), paper.abstract, paper.venue, paper.year,
        paper.area, paper.subarea, orjson.dumps(list(paper.keywords)).decode(), paper.url,
        paper.pdf, paper.status, paper.track, paper.tldr, paper.source,
        orjson.dumps(list(paper.author_ids)).decode(), orjson.dumps(list(paper.affiliations)).decode(),
        paper.citations, paper.citations_as_of, paper.code_url,
    )


def _author_rows(paper_id: str, authors: tuple[str, ...] | list[str], author_ids, affiliations) -> list[tuple]:
    """paper_authors rows for one paper; ids and affiliations only when they pair up with the names."""
    ids = author_ids if len(author_ids) == len(authors) else ()
    affs = affiliations if len(affiliations) == len(authors) else ()
    return [(paper_id, position, name, full_key(name), block_key(name),
             (ids[position] if ids and ids[position].startswith("~") else None),
             (affs[position] or None) if affs else None)
            for position, name in enumerate(authors)]


INSERT_AUTHOR = ("INSERT INTO paper_authors (paper_id, position, name, name_key, block_key, openreview_id, affiliation)"
                 " VALUES (?,?,?,?,?,?,?)")


_COLUMNS = ("id", "seq", "dedupe_key", "content_hash", "title", "authors", "abstract", "venue", "year", "area",
            "subarea", "keywords", "url", "pdf", "status", "track", "tldr", "source",
            "author_ids", "affiliations", "citations", "citations_as_of", "code_url")
# An upsert on id, not INSERT OR REPLACE: with seq UNIQUE, OR REPLACE would silently delete
# whichever paper held a clashing seq; here a clash raises instead.
INSERT_PAPER = (
    f"INSERT INTO papers ({', '.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})"
    f" ON CONFLICT(id) DO UPDATE SET {', '.join(f'{name}=excluded.{name}' for name in _COLUMNS[1:])}"
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


def fold_same_id(earlier: Paper, later: Paper) -> Paper:
    """The rule for two records with one id in one batch (one POST, one ingest run): the first
    record wins and the later one only fills fields the first left empty. Sources list some
    papers twice, the second copy often sparser or older; "first wins" also keeps a re-run of
    the same input a no-op. A later batch or run updates instead (its values win)."""
    return merge_papers(earlier, later, extra_wins=False)


def _statements(script: str) -> list[str]:
    return [statement.strip() for statement in script.split(";") if statement.strip()]


def _write_generation(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (WRITE_GENERATION,)).fetchone()
    return int(row[0]) if row else 0


# Ids per IN (...) lookup: under SQLite's smallest host-parameter limit (999).
_LOOKUP_CHUNK = 900


def _read_catalog(conn: sqlite3.Connection, papers: list[Paper]) -> _Catalog:
    """The catalog entries of a batch: its ids' source records and papers, and the stored
    papers that hold its dedupe keys (the oldest first, as ingest merges into it)."""
    catalog = _Catalog()
    ids = list(dict.fromkeys(paper.id for paper in papers))
    keys = list(dict.fromkeys(paper.dedupe_key() for paper in papers))
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for record_id, paper_id, content_hash in conn.execute(
                f"SELECT record_id, paper_id, content_hash FROM source_records WHERE record_id IN ({marks})", chunk):
            catalog.records[record_id] = (paper_id, content_hash)
        for paper_id, key in conn.execute(f"SELECT id, dedupe_key FROM papers WHERE id IN ({marks})", chunk):
            catalog.paper_keys[paper_id] = key
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        for key, paper_id in conn.execute(
                f"SELECT dedupe_key, id FROM papers WHERE dedupe_key IN ({marks}) ORDER BY rowid", chunk):
            catalog.by_key.setdefault(key, paper_id)
    return catalog


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _LOOKUP_CHUNK):
        yield items[start:start + _LOOKUP_CHUNK]


def _renumber_duplicate_seqs(conn: sqlite3.Connection) -> int:
    """Give every paper that shares its seq with another (written by papersift before seqs were
    allocated under the write lock) a fresh seq past the highest. Derived indexes that skipped
    such papers then pick them up on their next incremental update. Returns how many moved."""
    moved = [row[0] for row in conn.execute(
        "SELECT rowid FROM papers WHERE rowid NOT IN (SELECT MIN(rowid) FROM papers GROUP BY seq) ORDER BY seq, rowid")]
    if moved:
        top = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
        conn.executemany("UPDATE papers SET seq=? WHERE rowid=?", [(top + n, rowid) for n, rowid in enumerate(moved, 1)])
    return len(moved)


def _migrate_to_2(conn: sqlite3.Connection) -> None:
    for statement in _statements(TABLES):
        conn.execute(statement)
    _renumber_duplicate_seqs(conn)
    for statement in _statements(INDEXES):
        conn.execute(statement)


def _migrate_to_3(conn: sqlite3.Connection) -> None:
    """New columns and tables; every stored paper gets its paper_authors rows, and a code link
    when its abstract names a repository. Seqs stay: the text that indexes read is unchanged."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(papers)")}
    for statement in _statements(SCHEMA3_TABLES):
        added = re.match(r"ALTER TABLE papers ADD COLUMN (\w+)", statement)
        if added is None or added.group(1) not in columns:  # re-running the step adds nothing twice
            conn.execute(statement)
    rows, links = [], []
    for paper_id, authors, abstract in conn.execute("SELECT id, authors, abstract FROM papers"):
        rows.extend(_author_rows(paper_id, orjson.loads(authors), (), ()))
        link = code_link(abstract)
        if link:
            links.append((link, paper_id))
    conn.executemany(INSERT_AUTHOR.replace("INSERT", "INSERT OR IGNORE", 1), rows)
    conn.executemany("UPDATE papers SET code_url=? WHERE id=? AND code_url IS NULL", links)


# (version reached, step), in order: opening a store runs the steps past its version, all in
# one transaction, so a store is at one version or the next, never in between.
MIGRATIONS = ((2, _migrate_to_2), (3, _migrate_to_3))


def connect_readonly(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A read-only connection that works on a read-only mount too.

    mode=ro still needs the WAL's -shm and -wal files, which SQLite cannot create on a
    read-only file system. Without a -wal file there is nothing outside the database file to
    read, so it is then opened as immutable (no locks, no -shm); a database with a -wal file
    is read through it (SQLite reads an existing -shm it cannot write)."""
    conn = None
    try:
        uri = path.resolve().as_uri()  # as_uri escapes '?', '#', '%' in the path
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout, check_same_thread=False,
                               isolation_level=None)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        if conn is not None:
            conn.close()
        wal = Path(f"{path}-wal")
        if not path.exists() or (wal.exists() and wal.stat().st_size) or os.access(path.parent, os.W_OK):
            raise
    return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True, check_same_thread=False, isolation_level=None)


class Store:
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

    # -- connections -----------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; every write below says BEGIN IMMEDIATE itself.
        if self.readonly:
            conn = connect_readonly(self.path)
        else:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.row_factory = sqlite3.Row
        return conn

    def _conn(self) -> sqlite3.Connection:
        """One connection per thread (the web server reads from many)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _as_fault(self, exc: BaseException, action: str) -> StoreError | None:
        """The StoreError to raise for `exc` (a fault outside papersift), or None: re-raise `exc`."""
        error = translate(exc, self.data_dir, action)
        return None if error is exc else error

    @contextmanager
    def _writing(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction. BEGIN IMMEDIATE waits (up to BUSY_TIMEOUT_S) for any other
        writer, in any process, so everything read inside is current and stays so until COMMIT."""
        try:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
        except BaseException as exc:
            error = self._as_fault(exc, action)
            if error is None:
                raise
            raise error from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            self._roll_back(conn)
            error = self._as_fault(exc, action)
            if error is None:
                raise
            raise error from exc

    @contextmanager
    def transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction for tables that other parts keep in this database (the
        library): the same lock, BEGIN IMMEDIATE and one-line faults as the store's own writes."""
        with self._write_lock, self._writing(action) as conn:
            yield conn

    def _roll_back(self, conn: sqlite3.Connection) -> None:
        """Undo the open transaction, if SQLite has not already (it does on a full disk, and a
        second ROLLBACK would raise and hide the real error)."""
        if not conn.in_transaction:
            return
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            conn.close()  # closing discards the transaction; the next call opens a fresh connection
            self._local.conn = None

    def _prepare_schema(self) -> None:
        if self._conn().execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        with self._writing("create or upgrade the store") as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for target, step in MIGRATIONS:
                if version < target:  # another process may have upgraded it while this one waited
                    step(conn)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- writing ---------------------------------------------------------------------
    def upsert(self, papers: Iterable[Paper]) -> UpsertCounts:
        """Insert, update or merge a batch of papers in one transaction.

        A record seen before with the same content is skipped. A new record whose id
        is unknown but whose normalized title + year + venue match a stored paper is
        merged into that paper (its id becomes an alias), so no paper is doubled.
        Records with one id in one call follow `fold_same_id` (the first wins, later ones
        fill its gaps; one that adds nothing counts as unchanged), as ingest does within a run.

        The batch's catalog (_read_catalog) is read under the write lock, and the seqs are
        allocated there too, so concurrent writers (threads, Store objects, processes) each
        see the others' commits.
        """
        counts = UpsertCounts()
        batch = self._fold_batch(papers, counts)
        with self._write_lock, self._writing("store papers") as conn:
            catalog = _read_catalog(conn, batch)
            pending, record_rows = self._resolve(batch, catalog, counts)
            if record_rows:
                seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
                rows = [_row_values(paper, seq + offset) for offset, paper in enumerate(pending.values(), 1)]
                conn.executemany(INSERT_PAPER, rows)
                self._write_authors(conn, pending.values())
                conn.executemany("INSERT OR REPLACE INTO source_records VALUES (?,?,?)", record_rows)
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (WRITE_GENERATION, str(_write_generation(conn) + 1)))
            pause_point("store-before-commit")
        return counts

    @staticmethod
    def _write_authors(conn: sqlite3.Connection, papers: Iterable[Paper]) -> None:
        papers = list(papers)
        conn.executemany("DELETE FROM paper_authors WHERE paper_id=?", [(paper.id,) for paper in papers])
        conn.executemany(INSERT_AUTHOR, [row for paper in papers for row in
                                         _author_rows(paper.id, paper.authors, paper.author_ids, paper.affiliations)])

    def upsert_submissions(self, submissions: Iterable[dict]) -> int:
        """Store not-accepted submissions (id, venue, year, title, authors, status, source),
        replacing earlier copies by id, in one transaction. Returns how many were written."""
        rows = [(item["id"], item.get("venue"), item.get("year"), item["title"],
                 orjson.dumps(list(item.get("authors") or ())).decode(), item["status"], item.get("source"))
                for item in submissions]
        if not rows:
            return 0
        with self._write_lock, self._writing("store submissions") as conn:
            conn.executemany(
                "INSERT INTO submissions (id, venue, year, title, authors, status, source) VALUES (?,?,?,?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET venue=excluded.venue, year=excluded.year, title=excluded.title,"
                " authors=excluded.authors, status=excluded.status, source=excluded.source", rows)
        return len(rows)

    def set_author_identities(self, assignments: Iterable[tuple[str, str, int]]) -> None:
        """(author id, paper id, position) for every author row, in one transaction; rows not
        named keep no identity (NULL: readers fall back to the name key)."""
        with self._write_lock, self._writing("store author identities") as conn:
            conn.execute("UPDATE paper_authors SET author_id=NULL")
            conn.executemany("UPDATE paper_authors SET author_id=? WHERE paper_id=? AND position=?", assignments)

    def people_stamp(self) -> str:
        """What people_summaries depend on: the papers' write generation and the submissions."""
        conn = self._conn()
        submissions = conn.execute("SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM submissions").fetchone()
        return f"{_write_generation(conn)}:{submissions[0]}:{submissions[1]}"

    def replace_people_summaries(self, stamp: str, summaries: dict[str, object]) -> None:
        """Store precomputed aggregates (key -> JSON-able value) in one transaction, dropping the old ones."""
        with self._write_lock, self._writing("store venue summaries") as conn:
            conn.execute("DELETE FROM people_summaries")
            conn.executemany("INSERT INTO people_summaries (key, stamp, payload) VALUES (?,?,?)",
                             [(key, stamp, orjson.dumps(value).decode()) for key, value in summaries.items()])

    def people_summary(self, key: str) -> object | None:
        """A stored aggregate, or None when missing or computed before the last write."""
        row = self._conn().execute("SELECT stamp, payload FROM people_summaries WHERE key=?", (key,)).fetchone()
        if row is None or row[0] != self.people_stamp():
            return None
        return orjson.loads(row[1])

    def read(self, sql: str, params: tuple | list = ()) -> list[sqlite3.Row]:
        """Rows of a read-only query (the people/venue services aggregate in SQL)."""
        return self._conn().execute(sql, params).fetchall()

    @staticmethod
    def _fold_batch(papers: Iterable[Paper], counts: UpsertCounts) -> list[Paper]:
        """The batch with one record per id (read before the write lock is taken)."""
        folded: dict[str, Paper] = {}
        for paper in papers:
            earlier = folded.get(paper.id)
            if earlier is None:
                folded[paper.id] = paper
                continue
            combined = fold_same_id(earlier, paper)
            if combined == earlier:
                counts.unchanged += 1
            folded[paper.id] = combined
        return list(folded.values())

    def _resolve(self, batch: list[Paper], catalog: _Catalog,
                 counts: UpsertCounts) -> tuple[dict[str, Paper], list[tuple[str, str, str]]]:
        """(papers to write by id, source_records rows); updates the catalog to match."""
        pending: dict[str, Paper] = {}
        record_rows: list[tuple[str, str, str]] = []
        for paper in batch:
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
                if current is None:  # only a damaged store has a record pointing at no paper
                    raise StoreError(f"record {paper.id} points at paper {target_id}, which the store lacks")
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
        return pending, record_rows

    @staticmethod
    def _target_for(paper: Paper, previous: tuple[str, str] | None, catalog: _Catalog) -> str | None:
        if previous:
            return previous[0]
        if paper.id in catalog.paper_keys:
            return paper.id
        return catalog.by_key.get(paper.dedupe_key())

    # -- ingest runs -----------------------------------------------------------------
    def begin_run(self, paths: list[str]) -> int:
        """Record a 'running' ingest run, holding its liveness lock (run_locks) from before the
        row is visible; runs whose process died are marked 'interrupted' first."""
        run_id = None
        with self._write_lock:
            try:
                with self._writing("record an ingest run") as conn:
                    stale = self._mark_dead_runs(conn)
                    cursor = conn.execute(
                        "INSERT INTO ingest_runs (started_at, paths, status) VALUES (?, ?, 'running')",
                        (time.time(), orjson.dumps(paths).decode()),
                    )
                    run_id = int(cast(int, cursor.lastrowid))  # an INSERT sets it
                    self._run_locks[run_id] = run_locks.hold(run_locks.lock_path(self.data_dir, run_id))
            except BaseException:
                self._release_run(run_id)
                raise
        for path in stale:
            run_locks.remove_stale(path)
        return run_id

    def finish_run(self, run_id: int, status: str, summary: dict) -> None:
        """Store the run's final status, then drop its liveness lock (also when storing fails:
        the row then reads 'running' with no live process, and the next run marks it interrupted)."""
        try:
            with self._write_lock, self._writing("record the ingest run's result") as conn:
                conn.execute(
                    "UPDATE ingest_runs SET finished_at=?, status=?, summary=? WHERE run_id=?",
                    (time.time(), status, orjson.dumps(summary).decode(), run_id),
                )
        finally:
            self._release_run(run_id)

    def record_errors(self, run_id: int, errors: Iterable[tuple[str, str, str | None, str]]) -> None:
        """errors: (path, location, record id or None, problem)."""
        rows = [(run_id, *error) for error in errors]
        if not rows:
            return
        with self._write_lock, self._writing("record the ingest run's errors") as conn:
            conn.executemany(
                "INSERT INTO ingest_errors (run_id, path, location, record_id, problem) VALUES (?,?,?,?,?)", rows)

    def _release_run(self, run_id: int | None) -> None:
        handle = self._run_locks.pop(run_id, None) if run_id is not None else None
        if handle is not None and run_id is not None:
            run_locks.release(handle, run_locks.lock_path(self.data_dir, run_id))

    def _run_is_dead(self, run_id: int) -> bool:
        return run_id not in self._run_locks and not run_locks.is_alive(run_locks.lock_path(self.data_dir, run_id))

    def _mark_dead_runs(self, conn: sqlite3.Connection) -> list[Path]:
        """Inside a write transaction: 'running' runs of dead processes become 'interrupted'."""
        stale = []
        for (run_id,) in conn.execute("SELECT run_id FROM ingest_runs WHERE status='running'").fetchall():
            if self._run_is_dead(run_id):
                conn.execute("UPDATE ingest_runs SET status='interrupted', finished_at=? WHERE run_id=?",
                             (time.time(), run_id))
                stale.append(run_locks.lock_path(self.data_dir, run_id))
        return stale

    def runs(self) -> list[dict]:
        """Every ingest run, oldest first; a 'running' one whose process died reads 'interrupted'
        (works on a read-only store too: nothing is written)."""
        rows = [dict(row) for row in self._conn().execute(
            "SELECT run_id, started_at, finished_at, paths, status FROM ingest_runs ORDER BY run_id")]
        for row in rows:
            row["paths"] = orjson.loads(row["paths"])
            if row["status"] == "running" and self._run_is_dead(row["run_id"]):
                # The lock is dropped after the final status is committed: read it again.
                status = self._conn().execute("SELECT status FROM ingest_runs WHERE run_id=?", (row["run_id"],)).fetchone()
                row["status"] = "interrupted" if status[0] == "running" else status[0]
        return rows

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
        for chunk in _chunks(record_ids):
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
