"""The library's tables and their versioned migrations.

The library lives in the store's database file (one file to back up, one WAL, writes that
share the store's lock) but owns its tables and its schema version: the `meta` row
`library_schema` says which of MIGRATIONS have run, so the papers' schema (PRAGMA
user_version, store/schema.py) and the library's move independently. Every row carries a user id:
one local user ("local") today, accounts later without another data migration.

Rows name papers by their stable paper id (never the seq, which changes on every update), so
they survive `index --rebuild` and re-ingest; an id that a later ingest merged into another
paper still resolves through the store's source records.
"""

from __future__ import annotations

from papersift.component_schema import LOCAL_USER, ComponentSchema, script_step  # noqa: F401 - LOCAL_USER: the library's user

SCHEMA_KEY = "library_schema"  # meta key holding the library's schema version

# Version 1: one row per paper in a user's library (its like / not-interested mark, note,
# reading state, dates) and one row per (user, tag, paper).
VERSION_1 = """
CREATE TABLE IF NOT EXISTS library_papers (
    user_id TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    added_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    rating INTEGER NOT NULL DEFAULT 0 CHECK (rating IN (-1, 0, 1)),
    note TEXT,
    reading TEXT CHECK (reading IS NULL OR reading IN ('to-read', 'read')),
    PRIMARY KEY (user_id, paper_id)
);
CREATE TABLE IF NOT EXISTS library_tags (
    user_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    added_at REAL NOT NULL,
    PRIMARY KEY (user_id, tag, paper_id)
);
CREATE INDEX IF NOT EXISTS library_tags_paper ON library_tags(user_id, paper_id);
"""


# (version reached, step), in order; each step may run again on tables it already made.
MIGRATIONS = ((1, script_step(VERSION_1)),)
SCHEMA = ComponentSchema(SCHEMA_KEY, MIGRATIONS)
LIBRARY_SCHEMA = SCHEMA.latest
