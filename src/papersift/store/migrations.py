"""The one migration runner of every versioned schema papersift keeps in SQLite, and the one
splitter of a migration script into statements.

Three schemas use it: the store's own tables (the file's PRAGMA user_version, store/schema.py),
the tables a component keeps in the store's database (a `meta` row of its own,
component_schema.py) and the embedding cache (its file's PRAGMA user_version,
index/embedding_cache.py). A schema is (version reached, step) pairs in order; bringing it up
to date runs the steps past the recorded version and records the latest, all in one write
transaction, so a schema is at one version or the next, never in between. The version is read
again inside that transaction: another process may have migrated while this one waited.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

Migration = Callable[[sqlite3.Connection], None]


def split_statements(script: str) -> list[str]:
    """The SQL statements of `script`, in order. A `;` ends a statement only where SQLite's own
    tokenizer finds the text so far complete (sqlite3.complete_statement), so one inside a
    string literal, a quoted name or a comment does not cut it; text after the last `;` (a
    statement without one, or a comment) is the last statement."""
    statements, start = [], 0
    for end, char in enumerate(script):
        if char == ";" and sqlite3.complete_statement(script[start:end + 1]):
            statements.append(script[start:end + 1])
            start = end + 1
    statements.append(script[start:])
    return [statement.strip() for statement in statements if statement.strip(" \t\r\n;")]


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """A migration step's SQL statements, one by one inside the caller's transaction
    (sqlite3's executescript would commit first)."""
    for statement in split_statements(script):
        conn.execute(statement)


def script_step(script: str) -> Migration:
    """A migration step that only runs `script` (see run_script)."""
    return lambda conn: run_script(conn, script)


class VersionSlot(Protocol):
    """Where a schema records the version it reached."""

    def read(self, conn: sqlite3.Connection) -> int: ...

    def write(self, conn: sqlite3.Connection, version: int) -> None: ...


class UserVersion:
    """The version in the database file's header (PRAGMA user_version): a file one schema owns."""

    def read(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def write(self, conn: sqlite3.Connection, version: int) -> None:
        conn.execute(f"PRAGMA user_version={int(version)}")


class MetaKey:
    """The version in a row of the store's `meta` table: a schema that shares the store's file."""

    def __init__(self, key: str):
        self.key = key

    def read(self, conn: sqlite3.Connection) -> int:
        return self.read_with(conn.execute)

    def read_with(self, execute: Callable[[str, tuple], Any]) -> int:
        """The version, read by `execute(sql, params)` (a connection's, or Store.read); 0 while
        the schema has no tables yet."""
        try:
            rows = list(execute("SELECT value FROM meta WHERE key=?", (self.key,)))
        except sqlite3.OperationalError:  # no meta table: a store never written
            return 0
        return int(rows[0][0]) if rows else 0

    def write(self, conn: sqlite3.Connection, version: int) -> None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (self.key, str(version)))


class Migrations:
    """`steps`: (version reached, step) in order; each step may run again on tables it already
    made (a crash between a step and recording the version repeats it)."""

    def __init__(self, slot: VersionSlot, steps: Sequence[tuple[int, Migration]]):
        self.slot = slot
        self.steps = tuple(steps)
        self.latest = self.steps[-1][0]

    def version(self, conn: sqlite3.Connection) -> int:
        """The recorded version (0: the schema has no tables yet)."""
        return self.slot.read(conn)

    def apply(self, conn: sqlite3.Connection) -> bool:
        """Inside a write transaction: run the steps past the recorded version, then record the
        latest. False when the schema was already there (a version past the latest stays)."""
        version = self.version(conn)
        if version >= self.latest:
            return False
        for target, step in self.steps:
            if version < target:
                step(conn)
        self.slot.write(conn, self.latest)
        return True

    def ensure(self, conn: sqlite3.Connection,
               transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]) -> bool:
        """Bring the schema up to date: nothing while `conn` reads the latest version, else one
        write transaction (`transaction()`) that applies the steps. True when steps ran."""
        if self.version(conn) >= self.latest:
            return False
        with transaction() as writing:
            return self.apply(writing)


@contextmanager
def immediate_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on a bare connection: BEGIN IMMEDIATE waits for any other writer,
    so what is read inside stays current until the commit; an error rolls it back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
