"""A user's library: which papers they keep, with tags, a like / not-interested mark, a note
and a reading state. The one module that reads and writes the library tables (schema.py).

Every write is one transaction of the store (`Store.transaction`: BEGIN IMMEDIATE, so
writers in any thread or process queue for SQLite's write lock, and a fault rolls the whole
write back); a kill at any moment keeps what was committed and nothing of the open write.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from papersift.component_schema import UserTables
from papersift.labels import clean_label, normal_label
from papersift.library.schema import SCHEMA

RATINGS = {"like": 1, "none": 0, "dislike": -1}  # dislike: "not interested"
READING_STATES = ("to-read", "read")
MAX_TAG_CHARS = 100
MAX_NOTE_CHARS = 20_000
MAX_PAPERS_PER_WRITE = 5_000


class LibraryError(ValueError):
    """A library request that cannot be done (unknown paper, bad tag); the message says which and why."""


@dataclass(frozen=True, slots=True)
class LibraryEntry:
    paper_id: str
    added_at: float
    updated_at: float
    rating: int = 0  # 1 like, -1 not interested, 0 neither
    note: str | None = None
    reading: str | None = None  # 'to-read', 'read' or None
    tags: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {**asdict(self), "tags": list(self.tags)}


@dataclass(frozen=True, slots=True)
class EntryChange:
    """What an import adds to one paper's entry: tags are added, the others set when given."""

    paper_id: str
    tags: tuple[str, ...] = ()
    rating: int | None = None
    note: str | None = None
    reading: str | None = None
    added_at: float | None = None


def clean_tag(tag: str) -> str:
    """A tag as stored: NFC, whitespace collapsed; one line, 1 to MAX_TAG_CHARS characters of
    plain text (no control, bidi or zero-width characters: papersift.labels)."""
    return clean_label(tag, MAX_TAG_CHARS, LibraryError, "a tag cannot be empty", "tag")


def tag_key(tag: str) -> str:
    """A tag as looked up (untag, a tag's papers): the stored form, refusing nothing, so a tag
    stored before tags were checked can still be found and removed."""
    return normal_label(tag)


def clean_note(note: str | None) -> str | None:
    if note is None or not note.strip():
        return None
    if len(note) > MAX_NOTE_CHARS:
        raise LibraryError(f"a note may have at most {MAX_NOTE_CHARS:,} characters, got {len(note):,}")
    return note


def check_reading(state: str | None) -> str | None:
    if state in (None, "", "none"):
        return None
    if state not in READING_STATES:
        raise LibraryError(f"reading state must be one of {', '.join(READING_STATES)} or none, not {state!r}")
    return state


class Library(UserTables):
    """One user's library in one data dir's store."""

    SCHEMA = SCHEMA
    WRITE_ERROR, READ_ONLY_MESSAGE, COMMIT_PAUSE = LibraryError, "this library is opened read-only", "library-before-commit"

    # -- writing ---------------------------------------------------------------------

    def _resolve(self, paper_ids: Iterable[str]) -> list[str]:
        """The stored ids of these papers (an alias id resolves to the paper it was merged into)."""
        paper_ids = list(dict.fromkeys(paper_ids))
        if not paper_ids:
            raise LibraryError("no paper ids given")
        if len(paper_ids) > MAX_PAPERS_PER_WRITE:
            raise LibraryError(f"at most {MAX_PAPERS_PER_WRITE:,} papers per change, got {len(paper_ids):,}")
        found = self.store.get_many(paper_ids)
        resolved = []
        for paper_id in paper_ids:
            paper = found.get(paper_id) or self.store.get(paper_id)
            if paper is None:
                raise LibraryError(f"paper {paper_id!r}: no such paper in this data dir")
            resolved.append(paper.id)
        return list(dict.fromkeys(resolved))

    def _ensure_rows(self, conn: sqlite3.Connection, paper_ids: list[str], now: float,
                     added_at: dict[str, float] | None = None) -> None:
        conn.executemany(
            "INSERT INTO library_papers (user_id, paper_id, added_at, updated_at) VALUES (?,?,?,?)"
            " ON CONFLICT(user_id, paper_id) DO UPDATE SET updated_at=excluded.updated_at",
            [(self.user_id, paper_id, (added_at or {}).get(paper_id) or now, now) for paper_id in paper_ids])

    def tag(self, paper_ids: Iterable[str], tag: str) -> int:
        """Add a tag to papers (adding them to the library); returns how many newly got it."""
        tag, resolved, now = clean_tag(tag), self._resolve(paper_ids), time.time()
        with self._writing("tag papers") as conn:
            self._ensure_rows(conn, resolved, now)
            before = conn.total_changes
            conn.executemany("INSERT OR IGNORE INTO library_tags (user_id, tag, paper_id, added_at) VALUES (?,?,?,?)",
                             [(self.user_id, tag, paper_id, now) for paper_id in resolved])
            return conn.total_changes - before

    def untag(self, paper_ids: Iterable[str], tag: str) -> int:
        """Remove a tag from papers (they stay in the library); returns how many had it."""
        tag, resolved = tag_key(tag), self._resolve(paper_ids)
        with self._writing("untag papers") as conn:
            before = conn.total_changes
            conn.executemany("DELETE FROM library_tags WHERE user_id=? AND tag=? AND paper_id=?",
                             [(self.user_id, tag, paper_id) for paper_id in resolved])
            return conn.total_changes - before

    def rate(self, paper_ids: Iterable[str], rating: int) -> None:
        """Like (1), mark not interested (-1) or clear the mark (0)."""
        if rating not in (-1, 0, 1):
            raise LibraryError(f"rating must be 1 (like), -1 (not interested) or 0, not {rating!r}")
        resolved, now = self._resolve(paper_ids), time.time()
        with self._writing("rate papers") as conn:
            self._ensure_rows(conn, resolved, now)
            conn.executemany("UPDATE library_papers SET rating=? WHERE user_id=? AND paper_id=?",
                             [(rating, self.user_id, paper_id) for paper_id in resolved])

    def set_note(self, paper_id: str, note: str | None) -> None:
        """Replace the paper's note (None or blank: remove it)."""
        note, (resolved,), now = clean_note(note), self._resolve([paper_id]), time.time()
        with self._writing("store a note") as conn:
            self._ensure_rows(conn, [resolved], now)
            conn.execute("UPDATE library_papers SET note=? WHERE user_id=? AND paper_id=?", (note, self.user_id, resolved))

    def set_reading(self, paper_ids: Iterable[str], state: str | None) -> None:
        state, resolved, now = check_reading(state), self._resolve(paper_ids), time.time()
        with self._writing("store a reading state") as conn:
            self._ensure_rows(conn, resolved, now)
            conn.executemany("UPDATE library_papers SET reading=? WHERE user_id=? AND paper_id=?",
                             [(state, self.user_id, paper_id) for paper_id in resolved])

    def remove(self, paper_ids: Iterable[str]) -> int:
        """Drop papers from the library with their tags, mark and note; returns how many were in it."""
        resolved = self._resolve(paper_ids)
        with self._writing("remove papers from the library") as conn:
            rows = [(self.user_id, paper_id) for paper_id in resolved]
            conn.executemany("DELETE FROM library_tags WHERE user_id=? AND paper_id=?", rows)
            before = conn.total_changes
            conn.executemany("DELETE FROM library_papers WHERE user_id=? AND paper_id=?", rows)
            return conn.total_changes - before

    def apply(self, changes: Iterable[EntryChange]) -> int:
        """Merge many entries at once (an import), in one transaction: tags are added, a rating,
        note or reading state given replaces the stored one. Returns how many entries changed."""
        changes = list(changes)
        if not changes:
            return 0
        now = time.time()
        for change in changes:
            for tag in change.tags:
                clean_tag(tag)
            clean_note(change.note)
            check_reading(change.reading)
        with self._writing("import library entries") as conn:
            self._ensure_rows(conn, [change.paper_id for change in changes], now,
                              {change.paper_id: change.added_at for change in changes if change.added_at})
            for change in changes:
                conn.executemany("INSERT OR IGNORE INTO library_tags (user_id, tag, paper_id, added_at) VALUES (?,?,?,?)",
                                 [(self.user_id, clean_tag(tag), change.paper_id, now) for tag in change.tags])
                for column, value in (("rating", change.rating), ("note", clean_note(change.note)),
                                      ("reading", check_reading(change.reading))):
                    if value is not None:
                        conn.execute(f"UPDATE library_papers SET {column}=? WHERE user_id=? AND paper_id=?",
                                     (value, self.user_id, change.paper_id))
        return len(changes)

    # -- reading ---------------------------------------------------------------------
    def _ready(self) -> bool:
        """False for a store the library never wrote to (opened read-only): an empty library."""
        return self._stored_version() >= 1

    def entries(self, tag: str | None = None, rating: int | None = None, reading: str | None = None,
                paper_ids: Iterable[str] | None = None) -> list[LibraryEntry]:
        """Entries, newest first, optionally only those with a tag / rating / reading state / id."""
        if not self._ready():
            return []
        where: list[str] = ["p.user_id=?"]
        params: list[object] = [self.user_id]
        if tag is not None:
            where.append("EXISTS (SELECT 1 FROM library_tags t WHERE t.user_id=p.user_id AND t.paper_id=p.paper_id"
                         " AND t.tag=?)")
            params.append(tag_key(tag))
        if rating is not None:
            where.append("p.rating=?")
            params.append(rating)
        if reading is not None:
            where.append("p.reading=?")
            params.append(check_reading(reading))
        rows = self.store.read(
            "SELECT paper_id, added_at, updated_at, rating, note, reading FROM library_papers p"
            f" WHERE {' AND '.join(where)} ORDER BY added_at DESC, paper_id", params)
        wanted = None if paper_ids is None else set(paper_ids)
        tags = self._tags_by_paper()
        return [LibraryEntry(row["paper_id"], row["added_at"], row["updated_at"], row["rating"], row["note"],
                             row["reading"], tuple(tags.get(row["paper_id"], ())))
                for row in rows if wanted is None or row["paper_id"] in wanted]

    def entry(self, paper_id: str) -> LibraryEntry | None:
        found = self.entries(paper_ids=[paper_id])
        return found[0] if found else None

    def _tags_by_paper(self) -> dict[str, list[str]]:
        tags: dict[str, list[str]] = {}
        for row in self.store.read("SELECT paper_id, tag FROM library_tags WHERE user_id=? ORDER BY tag", (self.user_id,)):
            tags.setdefault(row[0], []).append(row[1])
        return tags

    def tags(self) -> dict[str, int]:
        """Tag -> number of papers, by tag name."""
        if not self._ready():
            return {}
        return {row[0]: row[1] for row in self.store.read(
            "SELECT tag, COUNT(*) FROM library_tags WHERE user_id=? GROUP BY tag ORDER BY tag", (self.user_id,))}

    def tagged(self, tag: str) -> list[str]:
        """Paper ids with the tag, oldest tagging first."""
        if not self._ready():
            return []
        return [row[0] for row in self.store.read(
            "SELECT paper_id FROM library_tags WHERE user_id=? AND tag=? ORDER BY added_at, paper_id",
            (self.user_id, tag_key(tag)))]

    def rated(self, rating: int) -> list[str]:
        if not self._ready():
            return []
        return [row[0] for row in self.store.read(
            "SELECT paper_id FROM library_papers WHERE user_id=? AND rating=? ORDER BY added_at, paper_id",
            (self.user_id, rating))]

    def seen(self) -> set[str]:
        """Every paper in the library (recommendations leave them out)."""
        if not self._ready():
            return set()
        return {row[0] for row in self.store.read("SELECT paper_id FROM library_papers WHERE user_id=?", (self.user_id,))}
