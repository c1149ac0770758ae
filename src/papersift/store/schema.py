"""The store's own tables and their ordered migrations (PRAGMA user_version)."""

from __future__ import annotations

import re
import sqlite3

import orjson

from papersift.code_links import code_link
from papersift.store.migrations import Migrations, UserVersion, run_script, split_statements
from papersift.store.records import INSERT_AUTHOR, author_rows

DB_FILE = "papers.sqlite3"
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


def write_generation(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (WRITE_GENERATION,)).fetchone()
    return int(row[0]) if row else 0


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
    run_script(conn, TABLES)
    _renumber_duplicate_seqs(conn)
    run_script(conn, INDEXES)


def _migrate_to_3(conn: sqlite3.Connection) -> None:
    """New columns and tables; every stored paper gets its paper_authors rows, and a code link
    when its abstract names a repository. Seqs stay: the text that indexes read is unchanged."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(papers)")}
    for statement in split_statements(SCHEMA3_TABLES):
        added = re.match(r"ALTER TABLE papers ADD COLUMN (\w+)", statement)
        if added is None or added.group(1) not in columns:  # re-running the step adds nothing twice
            conn.execute(statement)
    rows, links = [], []
    for paper_id, authors, abstract in conn.execute("SELECT id, authors, abstract FROM papers"):
        rows.extend(author_rows(paper_id, orjson.loads(authors), (), ()))
        link = code_link(abstract)
        if link:
            links.append((link, paper_id))
    conn.executemany(INSERT_AUTHOR.replace("INSERT", "INSERT OR IGNORE", 1), rows)
    conn.executemany("UPDATE papers SET code_url=? WHERE id=? AND code_url IS NULL", links)


# (version reached, step), in order: opening a store runs the steps past its version, all in
# one transaction, so a store is at one version or the next, never in between (store/migrations.py).
# 2: seq is UNIQUE (version 1 stores could hold duplicate seqs; opening renumbers them).
# 3: per-author details (paper_authors), citations, code links, not-accepted submissions.
MIGRATIONS = Migrations(UserVersion(), ((2, _migrate_to_2), (3, _migrate_to_3)))
SCHEMA_VERSION = MIGRATIONS.latest
