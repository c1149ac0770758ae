"""The accounts tables and their versioned migrations, in the store's database beside the
library's and the follow tables (library/schema.py's pattern; `meta` row `accounts_schema`).

Install-wide rather than per user: a user row, and the secrets that prove who a request is.
Every secret the server hands out (session ids, invitation, reset and API tokens) is stored as its
SHA-256 only: they are 256-bit random strings, so a fast hash suffices and a copy of the
database lets nobody act as a user. Passwords are argon2id hashes (accounts/passwords.py).
"""

from __future__ import annotations

import sqlite3

from papersift.component_schema import ComponentSchema, script_step

SCHEMA_KEY = "accounts_schema"

# Version 1.
# users: one row per account; user_id is the lowercased name, the value every component's
#   rows carry. A removed user keeps its row (removed_at set, no password) so the name and
#   its rows are never handed to someone else.
# invitations: single-use sign-up tokens (hash), with their expiry and who used them.
# sessions: a logged-in browser (cookie = the id, stored hashed), absolute expiry; logout deletes.
# api_tokens: per-user bearer tokens for scripts (hash), revoking deletes.
VERSION_1 = """
CREATE TABLE IF NOT EXISTS users (
    user_id TEXT PRIMARY KEY,
    password_hash TEXT,
    created_at REAL NOT NULL,
    password_changed_at REAL,
    removed_at REAL
);
CREATE TABLE IF NOT EXISTS invitations (
    token_hash TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL,
    used_by TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
    session_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);
CREATE TABLE IF NOT EXISTS api_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens(user_id);
"""


# Version 2.
# password_resets: single-use links an admin makes (`papersift users reset NAME`) for a user
#   who lost their password (hash, expiry, when used); a new link for a user replaces the old.
VERSION_2 = """
CREATE TABLE IF NOT EXISTS password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL
);
CREATE INDEX IF NOT EXISTS password_resets_user ON password_resets(user_id);
"""

# Version 3.
# sessions.user_agent: the browser's User-Agent at login (at most 200 characters), shown in the
#   account page's list of sessions so a user can tell theirs apart. No "last seen": keeping it
#   would make every page view a write queued on the store's write lock.
def _version_3(conn: sqlite3.Connection) -> None:
    columns = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
    if "user_agent" not in columns:  # a step may run again (component_schema.ComponentSchema)
        conn.execute("ALTER TABLE sessions ADD COLUMN user_agent TEXT")


MIGRATIONS = ((1, script_step(VERSION_1)), (2, script_step(VERSION_2)), (3, _version_3))
SCHEMA = ComponentSchema(SCHEMA_KEY, MIGRATIONS)
