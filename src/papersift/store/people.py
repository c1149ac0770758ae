"""The people tables: not-accepted submissions, author identities, people summaries."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from papersift.store.connection import Connections
from papersift.store.schema import WRITE_GENERATION


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

    def people_stamp(self) -> str:
        """What people_summaries depend on: the papers' write generation and the submissions."""
        return self.papers_and_people_stamp()[1]

    def papers_and_people_stamp(self) -> tuple[int, str]:
        """(the papers' highest seq, people_stamp()) read in one statement, so in one read
        transaction: query intent (search/intent.py) checks both on every request, and each
        statement costs a transaction's locks."""
        row = self._conn().execute(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM papers), (SELECT value FROM meta WHERE key=?),"
            " (SELECT COUNT(*) FROM submissions), (SELECT COALESCE(MAX(rowid), 0) FROM submissions)",
            (WRITE_GENERATION,)).fetchone()
        generation = int(row[1]) if row[1] is not None else 0
        return row[0], f"{generation}:{row[2]}:{row[3]}"

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
