"""Connections to the store's database: one per thread, read-only ones that work on a
read-only mount, and the write transaction (BEGIN IMMEDIATE, one-line faults)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from papersift.store_errors import StoreError, translate

BUSY_TIMEOUT_S = 30  # how long a writer waits for another one's transaction before giving up


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


class Connections:
    """The connections and write transactions of one store file (the base of Store)."""

    data_dir: Path
    path: Path
    readonly: bool
    _local: threading.local
    _write_lock: threading.RLock

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

    def read(self, sql: str, params: tuple | list = ()) -> list[sqlite3.Row]:
        """Rows of a read-only query (the people/venue services aggregate in SQL)."""
        return self._conn().execute(sql, params).fetchall()
