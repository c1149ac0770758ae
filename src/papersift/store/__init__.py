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

from papersift.store.connection import BUSY_TIMEOUT_S, connect_readonly
from papersift.store.papers import ReadOnlyStore, Store
from papersift.store.records import UpsertCounts, fold_same_id, merge_papers, paper_from_row
from papersift.store.schema import DB_FILE, INDEXES, SCHEMA_VERSION, TABLES
from papersift.store_errors import StorageFullError, StoreError

__all__ = ["BUSY_TIMEOUT_S", "DB_FILE", "INDEXES", "SCHEMA_VERSION", "TABLES", "ReadOnlyStore", "StorageFullError",
           "Store", "StoreError", "UpsertCounts", "connect_readonly", "fold_same_id", "merge_papers", "paper_from_row"]
