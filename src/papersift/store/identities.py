"""Author identities at scale: the author rows streamed in the orders `people.identity.build`
reads them, and its identities staged as they are resolved, then swapped in in one write
transaction. Staging tables are appended to only (rows arrive by surname, not by row), and
SQLite sorts them once at the end, so a million papers need no more than SQLite's cache."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager

from papersift.store.people import PeopleTables

STAGE_TABLES = (
    "DROP TABLE IF EXISTS temp.identity_rows",
    "DROP TABLE IF EXISTS temp.identity_final",
    # a row's identity: its own (an OpenReview id), or its group's slug, size and first mention
    # (a named person, numbered below); no key, so each insert appends
    "CREATE TEMP TABLE identity_rows (row INTEGER, identity TEXT, slug TEXT, size INTEGER, grp INTEGER)",
    "CREATE TEMP TABLE identity_final (row INTEGER PRIMARY KEY, identity TEXT)",
)
# People named by one slug: the most mentioned keeps it, the others get -2, -3... (ties: the
# group whose first mention comes first, by paper and position). A group's rows are peers in
# (size, grp), so DENSE_RANK over rows numbers the groups. Inserted by row: appends again.
RANK_NAMED = ("INSERT INTO temp.identity_final (row, identity) SELECT row, COALESCE(identity, CASE rank"
              " WHEN 1 THEN slug ELSE slug || '-' || rank END) FROM (SELECT row, identity, slug, DENSE_RANK()"
              " OVER (PARTITION BY slug ORDER BY size DESC, grp) AS rank FROM temp.identity_rows) ORDER BY row")


class IdentityStage:
    """Where `staging` collects identities as they come."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def add(self, rows: Iterable[tuple[int, str | None, str | None, int | None, int | None]]) -> None:
        """(author rowid, its OpenReview identity or None, else its group's slug, mentions and
        first mention), numbered within a slug when all are staged."""
        self._conn.executemany("INSERT INTO temp.identity_rows (row, identity, slug, size, grp) VALUES (?,?,?,?,?)",
                               rows)


def author_rows_by_paper(store: PeopleTables) -> Generator[tuple[int, str, str]]:
    """(rowid, paper id, name key) of every author row, by paper and position, streamed."""
    cursor = store._conn().cursor()
    cursor.row_factory = None
    try:
        yield from cursor.execute("SELECT rowid, paper_id, name_key FROM paper_authors ORDER BY paper_id, position")
    finally:
        cursor.close()


def author_rows_grouped(store: PeopleTables,
                        group: Callable[[str], str]) -> Generator[tuple[str, int, str, str | None, str | None]]:
    """(group(name key), rowid, name key, OpenReview id, affiliation) of every author row,
    ordered by group, streamed: SQLite sorts them (spilling to temp files past its cache), so
    memory never holds the table. Close it (contextlib.closing) when not read to the end."""
    conn = store._conn()
    conn.create_function("papersift_group", 1, group, deterministic=True)
    cursor = conn.cursor()
    cursor.row_factory = None
    try:
        yield from cursor.execute("SELECT papersift_group(name_key) AS grouping, rowid, name_key, openreview_id,"
                                  " affiliation FROM paper_authors ORDER BY grouping")
    finally:
        cursor.close()


@contextmanager
def staging(store: PeopleTables) -> Iterator[IdentityStage]:
    """Reads inside see one snapshot of the store; the identities go to temp tables of its
    connection (a crash loses only them); on success one write transaction gives every author
    row its staged identity (rows not staged: NULL, readers fall back to the name key), so
    readers see the old identities or the new ones, never a mix."""
    conn = store._conn()
    for statement in STAGE_TABLES:
        conn.execute(statement)
    try:
        conn.execute("BEGIN")  # one read snapshot for every read of the build
        try:
            yield IdentityStage(conn)
        finally:
            conn.execute("COMMIT")  # only the temp tables were written
        conn.execute(RANK_NAMED)
        conn.execute("DELETE FROM temp.identity_rows")
        with store._write_lock, store._writing("store author identities") as conn:
            # by rowid on both sides: one pass over each
            conn.execute("UPDATE paper_authors SET author_id = (SELECT identity FROM temp.identity_final"
                         " WHERE row = paper_authors.rowid)")
    finally:
        for table in ("identity_rows", "identity_final"):
            conn.execute(f"DROP TABLE IF EXISTS temp.{table}")


def author_identity_counts(store: PeopleTables) -> tuple[int, int, int]:
    """(author rows, distinct identities, distinct OpenReview identities)."""
    conn = store._conn()
    rows, authors = conn.execute("SELECT COUNT(*), COUNT(DISTINCT author_id) FROM paper_authors").fetchone()
    openreview = conn.execute("SELECT COUNT(DISTINCT author_id) FROM paper_authors WHERE author_id LIKE '~%'").fetchone()[0]
    return rows, authors, openreview
