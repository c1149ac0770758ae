"""The people tables: not-accepted submissions, author identities, people summaries."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager

import orjson

from papersift.store.connection import Connections
from papersift.store.schema import write_generation

STAGE_TABLES = (
    "DROP TABLE IF EXISTS temp.identity_rows",
    "DROP TABLE IF EXISTS temp.identity_groups",
    # a row's identity: its own (an OpenReview id) or its group's (a named person, numbered below)
    "CREATE TEMP TABLE identity_rows (row INTEGER PRIMARY KEY, identity TEXT, grp INTEGER)",
    "CREATE TEMP TABLE identity_groups (grp INTEGER PRIMARY KEY, slug TEXT NOT NULL, size INTEGER, identity TEXT)",
)
# People named by one slug: the most mentioned keeps it, the others get -2, -3... (ties: the
# group whose first mention comes first, by paper and position).
RANK_NAMED = ("UPDATE temp.identity_groups AS g SET identity = CASE r.rank WHEN 1 THEN g.slug"
              " ELSE g.slug || '-' || r.rank END FROM (SELECT grp, ROW_NUMBER() OVER"
              " (PARTITION BY slug ORDER BY size DESC, grp) AS rank FROM temp.identity_groups) AS r"
              " WHERE r.grp = g.grp")


class IdentityStage:
    """Where `PeopleTables.staging_author_identities` collects identities as they come."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def add(self, rows: Iterable[tuple[int, str | None, int | None]], groups: Iterable[tuple[int, str, int]]) -> None:
        """rows: (author rowid, its identity or None, its group or None); groups: (group, slug,
        mentions) of named people, numbered within a slug when all are staged."""
        self._conn.executemany("INSERT INTO temp.identity_rows (row, identity, grp) VALUES (?,?,?)", rows)
        self._conn.executemany("INSERT INTO temp.identity_groups (grp, slug, size) VALUES (?,?,?)", groups)


class PeopleTables(Connections):
    """The submissions, paper_authors identities and people_summaries of a store (a part of Store)."""

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

    def author_rows_by_paper(self) -> Iterator[tuple[int, str, str]]:
        """(rowid, paper id, name key) of every author row, by paper and position, streamed."""
        cursor = self._conn().cursor()
        cursor.row_factory = None
        try:
            yield from cursor.execute("SELECT rowid, paper_id, name_key FROM paper_authors ORDER BY paper_id, position")
        finally:
            cursor.close()

    def author_rows_grouped(self, group: Callable[[str], str]) -> Generator[tuple[str, int, str, str | None, str | None]]:
        """(group(name key), rowid, name key, OpenReview id, affiliation) of every author row,
        ordered by group, streamed: SQLite sorts them (spilling to temp files past its cache), so
        memory never holds the table. Close it (contextlib.closing) when not read to the end."""
        conn = self._conn()
        conn.create_function("papersift_group", 1, group, deterministic=True)
        cursor = conn.cursor()
        cursor.row_factory = None
        try:
            yield from cursor.execute("SELECT papersift_group(name_key) AS grouping, rowid, name_key, openreview_id,"
                                      " affiliation FROM paper_authors ORDER BY grouping")
        finally:
            cursor.close()

    @contextmanager
    def staging_author_identities(self) -> Iterator[IdentityStage]:
        """Author identities staged as they are resolved, then swapped in. Reads inside see one
        snapshot of the store; the identities go to temp tables of this connection (a crash
        loses only them); on success one write transaction gives every author row its staged
        identity (rows not staged: NULL, readers fall back to the name key), so readers see the
        old identities or the new ones, never a mix."""
        conn = self._conn()
        for statement in STAGE_TABLES:
            conn.execute(statement)
        try:
            conn.execute("BEGIN")  # one read snapshot for every read of the build
            try:
                yield IdentityStage(conn)
            finally:
                conn.execute("COMMIT")  # only the temp tables were written
            conn.execute(RANK_NAMED)
            with self._write_lock, self._writing("store author identities") as conn:
                conn.execute("UPDATE paper_authors SET author_id = (SELECT COALESCE(r.identity, g.identity)"
                             " FROM temp.identity_rows r LEFT JOIN temp.identity_groups g ON g.grp = r.grp"
                             " WHERE r.row = paper_authors.rowid)")
        finally:
            for table in ("identity_rows", "identity_groups"):
                conn.execute(f"DROP TABLE IF EXISTS temp.{table}")

    def author_identity_counts(self) -> tuple[int, int, int]:
        """(author rows, distinct identities, distinct OpenReview identities)."""
        rows, authors = self._conn().execute("SELECT COUNT(*), COUNT(DISTINCT author_id) FROM paper_authors").fetchone()
        openreview = self._conn().execute("SELECT COUNT(DISTINCT author_id) FROM paper_authors"
                                          " WHERE author_id LIKE '~%'").fetchone()[0]
        return rows, authors, openreview

    def people_stamp(self) -> str:
        """What people_summaries depend on: the papers' write generation and the submissions."""
        conn = self._conn()
        submissions = conn.execute("SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM submissions").fetchone()
        return f"{write_generation(conn)}:{submissions[0]}:{submissions[1]}"

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
