"""The embedding cache: vectors in SQLite keyed by (model, sha1 of the exact model input), so
an unchanged paper is never embedded twice and a killed run resumes where it stopped."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from papersift.store import connect_readonly
from papersift.store.migrations import Migrations, UserVersion, immediate_transaction

EMBEDDINGS_FOLDER = "embeddings"


def token_key(prefix: str, token_ids: Sequence[int]) -> bytes:
    """Cache key of one model input: the model and the exact (truncated) token ids it reads,
    so changing max_tokens keeps every vector of a text that was not truncated."""
    return hashlib.sha1(prefix.encode() + b"\x00" + np.asarray(token_ids, dtype=np.uint32).tobytes()).digest()


# Version 0 kept `vectors` WITHOUT ROWID: an index b-tree holds at most ~1,000 bytes of a row
# on its leaf page (4 KB pages), so every 1-1.5 KB vector spilled onto an overflow page of its
# own: 4.7 KB on disk per vector. A rowid table holds a row of up to ~4 KB on the leaf; with
# the unique index on the 20-byte key it takes 1.4 KB per 256-d vector, and writes and reads
# measured 3-4x faster (docs/semantic.md, "The embedding cache").
CACHE_TABLE = "CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, vec BLOB NOT NULL)"


def _cache_to_1(conn: sqlite3.Connection) -> None:
    old = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='vectors'").fetchone() is not None
    if old:
        conn.execute("ALTER TABLE vectors RENAME TO vectors_v0")
    conn.execute(CACHE_TABLE)
    if old:
        conn.execute("INSERT OR IGNORE INTO vectors (key, vec) SELECT key, vec FROM vectors_v0")
        conn.execute("DROP TABLE vectors_v0")


CACHE_MIGRATIONS = Migrations(UserVersion(), ((1, _cache_to_1),))  # PRAGMA user_version of cache.sqlite3
CACHE_SCHEMA_VERSION = CACHE_MIGRATIONS.latest


def migrate_cache(conn: sqlite3.Connection) -> bool:
    """Bring a writable cache to CACHE_SCHEMA_VERSION in one transaction (another process may
    have done it: the version is read again under the write lock); True when the steps left
    free pages (rows moved out of a version-0 table), so the file is worth a VACUUM."""
    migrated = CACHE_MIGRATIONS.ensure(conn, lambda: immediate_transaction(conn))
    return migrated and conn.execute("PRAGMA freelist_count").fetchone()[0] > 0


class EmbeddingCache:
    """SQLite table key -> float32 vector, in DATA_DIR/embeddings/cache.sqlite3 (WAL, safe to
    kill). Opening it writable migrates an older layout (migrate_cache); read-only, both read."""

    def __init__(self, data_dir: str | os.PathLike, readonly: bool = False):
        folder = Path(data_dir) / EMBEDDINGS_FOLDER
        if not readonly:
            folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "cache.sqlite3"
        if readonly:
            self.conn = connect_readonly(self.path, timeout=30)
        else:
            self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            if migrate_cache(self.conn):
                self.conn.execute("VACUUM")  # return the old table's pages to the file system

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for key, blob in self.conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk):
                found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: Iterable[tuple[bytes, np.ndarray]]) -> None:
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                                  [(key, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in items])

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
