"""The follow tables (saved searches, seen marks, feed tokens, digests) and their versioned
migrations, in the store's database beside the library's (library/schema.py's pattern).

The `meta` row `follow_schema` says which of MIGRATIONS have run, so the papers' schema, the
library's and this one move independently. Every per-user row carries a user id: one local
user today, accounts later without a data migration. Rows name papers by their stable id.
"""

from __future__ import annotations

import secrets
import sqlite3
import time

from papersift.component_schema import ComponentSchema, run_script

SCHEMA_KEY = "follow_schema"

# Version 1.
# saved_searches: a named search (query, mode, filters, sort as JSON).
# watch_marks: per (user, watch, channel) the store's max seq when the user was last shown it
#   (channel 'page': the "mark as seen" button; 'digest': the last digest).
# watch_seen: the paper ids shown at those marks (an updated paper gets a new seq; these keep it old).
# feed_tokens: the per-user token of private feed URLs (revoking deletes the row).
# install_secrets: per-install secrets (the CSRF signing key), made here, at the first write.
# digests: the outbox; a row is a composed digest, sent_at set once the SMTP server took it.
VERSION_1 = """
CREATE TABLE IF NOT EXISTS saved_searches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    search TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (user_id, name)
);
CREATE TABLE IF NOT EXISTS watch_marks (
    user_id TEXT NOT NULL,
    watch TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('page', 'digest')),
    seen_seq INTEGER NOT NULL,
    marked_at REAL NOT NULL,
    PRIMARY KEY (user_id, watch, channel)
);
CREATE TABLE IF NOT EXISTS watch_seen (
    user_id TEXT NOT NULL,
    watch TEXT NOT NULL,
    channel TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    PRIMARY KEY (user_id, watch, channel, paper_id)
);
CREATE TABLE IF NOT EXISTS feed_tokens (
    user_id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS install_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS user_settings (
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE TABLE IF NOT EXISTS digests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    papers INTEGER NOT NULL,
    sent_at REAL,
    sent_to TEXT
);
CREATE INDEX IF NOT EXISTS digests_unsent ON digests(user_id, sent_at);
"""


def _migrate_to_1(conn: sqlite3.Connection) -> None:
    run_script(conn, VERSION_1)
    # The CSRF key: created with the tables (a first write), never while serving a read.
    conn.execute("INSERT OR IGNORE INTO install_secrets (name, value, created_at) VALUES ('csrf', ?, ?)",
                 (secrets.token_urlsafe(32), time.time()))


MIGRATIONS = ((1, _migrate_to_1),)
SCHEMA = ComponentSchema(SCHEMA_KEY, MIGRATIONS)
FOLLOW_SCHEMA = SCHEMA.latest
