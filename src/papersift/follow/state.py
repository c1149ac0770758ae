"""The one module that reads and writes the follow tables (schema.py) for one user: saved
searches, seen marks, the private feed token, settings, the per-install CSRF key and the
digest outbox.

Every write is one transaction of the store (`Store.transaction`: BEGIN IMMEDIATE, writers in
any thread or process queue for SQLite's write lock, a fault rolls the whole write back); the
pause point `follow-before-commit` lets the drill tests kill a process inside one.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass

import orjson

from papersift.component_schema import UserTables
from papersift.follow.saved import (
    MAX_SAVED_SEARCHES,
    FollowError,
    SavedQuery,
    SavedSearch,
    clean_name,
)
from papersift.follow.schema import SCHEMA
from papersift.labels import normal_label

CHANNELS = ("page", "digest")
SETTINGS = {"email": 320, "lang": 2}  # user setting -> longest value


def check_address(value: str, what: str = "e-mail address") -> str:
    """One plain address (`name@domain`), refused with one line when it is anything else (CR/LF,
    control characters, a list, a display name): checked when it is given, not when mail is built."""
    from email.headerregistry import Address

    try:
        address = Address(addr_spec=value)
    except Exception:  # noqa: BLE001 - the email package raises ValueError, IndexError and its own defects
        address = None
    if address is None or not address.username or not address.domain or any(char.isspace() for char in address.domain):
        raise FollowError(f"{what} {value!r} is not one address of the form name@domain")
    return value


@dataclass(frozen=True)
class Mark:
    """What a user has been shown of a watch on one channel."""

    seen_seq: int  # the store's max seq when last shown: papers at or below it are old
    seen_ids: frozenset[str]  # ids shown then (an updated paper's new seq does not make it new)
    marked_at: float


@dataclass(frozen=True)
class Digest:
    id: int
    created_at: float
    subject: str
    text_body: str
    html_body: str
    papers: int
    sent_at: float | None
    sent_to: str | None


class Following(UserTables):
    """One user's saved searches, marks, feed token and digests in one data dir's store."""

    SCHEMA = SCHEMA
    WRITE_ERROR, COMMIT_PAUSE = FollowError, "follow-before-commit"
    READ_ONLY_MESSAGE = "opened read-only: start the server with --enable-writes, or use the CLI"

    def _ready(self) -> bool:
        return self._stored_version() >= 1

    # -- saved searches ----------------------------------------------------------------
    def saved_searches(self) -> list[SavedSearch]:
        if not self._ready():
            return []
        rows = self.store.read("SELECT id, name, search, created_at, updated_at FROM saved_searches WHERE user_id=?"
                               " ORDER BY name COLLATE NOCASE, id", (self.user_id,))
        return [SavedSearch(row[0], row[1], SavedQuery.from_dict(orjson.loads(row[2])), row[3], row[4]) for row in rows]

    def saved_search(self, ref: int | str) -> SavedSearch:
        """By name, or by id (an int, or digits that name no saved search)."""
        searches = self.saved_searches()
        if isinstance(ref, str):
            name = normal_label(ref)
            found = [saved for saved in searches if saved.name == name]
            if found:
                return found[0]
        if isinstance(ref, int) or str(ref).strip().isdigit():
            found = [saved for saved in searches if saved.id == int(ref)]
            if found:
                return found[0]
        raise FollowError(f"no saved search {ref!r}")

    def save_search(self, name: str, query: SavedQuery) -> SavedSearch:
        """A new saved search; it starts with nothing new (its marks are the store as it is now)."""
        name, now = clean_name(name), time.time()
        with self._writing("save a search") as conn:
            count = conn.execute("SELECT COUNT(*) FROM saved_searches WHERE user_id=?", (self.user_id,)).fetchone()[0]
            if count >= MAX_SAVED_SEARCHES:
                raise FollowError(f"at most {MAX_SAVED_SEARCHES} saved searches")
            try:
                cursor = conn.execute("INSERT INTO saved_searches (user_id, name, search, created_at, updated_at)"
                                      " VALUES (?,?,?,?,?)", (self.user_id, name, orjson.dumps(query.to_dict()).decode(), now, now))
            except sqlite3.IntegrityError:
                raise FollowError(f"a saved search is already named {name!r}") from None
            saved_id = int(cursor.lastrowid or 0)
            max_seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
            for channel in CHANNELS:
                self._set_mark(conn, f"saved:{saved_id}", channel, max_seq, (), now)
        return SavedSearch(saved_id, name, query, now, now)

    def rename_search(self, ref: int | str, new_name: str) -> SavedSearch:
        saved, new_name = self.saved_search(ref), clean_name(new_name)
        with self._writing("rename a saved search") as conn:
            try:
                conn.execute("UPDATE saved_searches SET name=?, updated_at=? WHERE user_id=? AND id=?",
                             (new_name, time.time(), self.user_id, saved.id))
            except sqlite3.IntegrityError:
                raise FollowError(f"a saved search is already named {new_name!r}") from None
        return self.saved_search(saved.id)

    def delete_search(self, ref: int | str) -> SavedSearch:
        """Drop the saved search with its marks."""
        saved = self.saved_search(ref)
        with self._writing("delete a saved search") as conn:
            conn.execute("DELETE FROM saved_searches WHERE user_id=? AND id=?", (self.user_id, saved.id))
            for table in ("watch_marks", "watch_seen"):
                conn.execute(f"DELETE FROM {table} WHERE user_id=? AND watch=?", (self.user_id, f"saved:{saved.id}"))
        return saved

    # -- what has been shown -----------------------------------------------------------
    def mark(self, watch: str, channel: str = "page") -> Mark | None:
        """None: never shown (no mark yet)."""
        if not self._ready():
            return None
        rows = self.store.read("SELECT seen_seq, marked_at FROM watch_marks WHERE user_id=? AND watch=? AND channel=?",
                               (self.user_id, watch, channel))
        if not rows:
            return None
        ids = self.store.read("SELECT paper_id FROM watch_seen WHERE user_id=? AND watch=? AND channel=?",
                              (self.user_id, watch, channel))
        return Mark(rows[0][0], frozenset(row[0] for row in ids), rows[0][1])

    def _set_mark(self, conn: sqlite3.Connection, watch: str, channel: str, seen_seq: int,
                  shown_ids: Iterable[str], now: float) -> None:
        conn.execute("INSERT INTO watch_marks (user_id, watch, channel, seen_seq, marked_at) VALUES (?,?,?,?,?)"
                     " ON CONFLICT(user_id, watch, channel) DO UPDATE SET"
                     " seen_seq=MAX(seen_seq, excluded.seen_seq), marked_at=excluded.marked_at",
                     (self.user_id, watch, channel, seen_seq, now))
        conn.executemany("INSERT OR IGNORE INTO watch_seen (user_id, watch, channel, paper_id) VALUES (?,?,?,?)",
                         [(self.user_id, watch, channel, paper_id) for paper_id in shown_ids])

    def mark_seen(self, watch: str, seen_seq: int, shown_ids: Iterable[str], channel: str = "page") -> None:
        """Record that the user was shown the watch's papers: `seen_seq` is the store's max seq
        read BEFORE listing them (a paper committed meanwhile stays new), `shown_ids` what was
        listed. One transaction."""
        if channel not in CHANNELS:
            raise FollowError(f"channel must be one of {', '.join(CHANNELS)}")
        with self._writing("mark papers as seen") as conn:
            self._set_mark(conn, watch, channel, seen_seq, shown_ids, time.time())

    def watches(self, channel: str) -> list[str]:
        if not self._ready():
            return []
        return [row[0] for row in self.store.read("SELECT watch FROM watch_marks WHERE user_id=? AND channel=?"
                                                  " ORDER BY watch", (self.user_id, channel))]

    # -- private feed token ------------------------------------------------------------
    def feed_token(self) -> str | None:
        if not self._ready():
            return None
        rows = self.store.read("SELECT token FROM feed_tokens WHERE user_id=?", (self.user_id,))
        return rows[0][0] if rows else None

    def new_feed_token(self) -> str:
        """A fresh token (replacing, so revoking, any earlier one)."""
        token = secrets.token_urlsafe(24)
        with self._writing("create a feed token") as conn:
            conn.execute("INSERT OR REPLACE INTO feed_tokens (user_id, token, created_at) VALUES (?,?,?)",
                         (self.user_id, token, time.time()))
        return token

    def revoke_feed_token(self) -> bool:
        with self._writing("revoke the feed token") as conn:
            return conn.execute("DELETE FROM feed_tokens WHERE user_id=?", (self.user_id,)).rowcount > 0

    def user_of_token(self, token: str) -> str | None:
        if not self._ready() or not token:
            return None
        rows = self.store.read("SELECT user_id, token FROM feed_tokens WHERE token=?", (token,))
        return rows[0][0] if rows and secrets.compare_digest(rows[0][1], token) else None

    def csrf_key(self) -> str | None:
        """The per-install signing key of form tokens (None before the tables exist); with
        accounts the page binds it to the login session (web/forms.form_key)."""
        if not self._ready():
            return None
        rows = self.store.read("SELECT value FROM install_secrets WHERE name='csrf'")
        return rows[0][0] if rows else None

    # -- settings --------------------------------------------------------------------
    def settings(self) -> dict[str, str]:
        if not self._ready():
            return {}
        return {row[0]: row[1] for row in self.store.read("SELECT key, value FROM user_settings WHERE user_id=?",
                                                          (self.user_id,))}

    def set_setting(self, key: str, value: str | None) -> None:
        if key not in SETTINGS:
            raise FollowError(f"unknown setting {key!r}: one of {', '.join(SETTINGS)}")
        if value is not None and len(value) > SETTINGS[key]:
            raise FollowError(f"{key}: at most {SETTINGS[key]} characters")
        if key == "lang" and value not in (None, "zh", "en"):
            raise FollowError("lang must be zh or en")
        if key == "email" and value is not None:
            check_address(value)
        with self._writing("store a setting") as conn:
            if value is None:
                conn.execute("DELETE FROM user_settings WHERE user_id=? AND key=?", (self.user_id, key))
            else:
                conn.execute("INSERT OR REPLACE INTO user_settings (user_id, key, value) VALUES (?,?,?)",
                             (self.user_id, key, value))

    # -- digest outbox -----------------------------------------------------------------
    def queue_digest(self, subject: str, text_body: str, html_body: str, papers: int,
                     marks: list[tuple[str, int, list[str]]]) -> int:
        """Store a composed digest AND advance the digest marks it covers, in one transaction:
        after a kill either both happened (the digest waits in the outbox) or neither."""
        now = time.time()
        with self._writing("queue a digest") as conn:
            cursor = conn.execute("INSERT INTO digests (user_id, created_at, subject, text_body, html_body, papers)"
                                  " VALUES (?,?,?,?,?,?)", (self.user_id, now, subject, text_body, html_body, papers))
            for watch, seen_seq, shown_ids in marks:
                self._set_mark(conn, watch, "digest", seen_seq, shown_ids, now)
            return int(cursor.lastrowid or 0)

    def unsent_digests(self) -> list[Digest]:
        return self._digests("AND sent_at IS NULL")

    def digests(self) -> list[Digest]:
        return self._digests("")

    def _digests(self, condition: str) -> list[Digest]:
        if not self._ready():
            return []
        rows = self.store.read("SELECT id, created_at, subject, text_body, html_body, papers, sent_at, sent_to"
                               f" FROM digests WHERE user_id=? {condition} ORDER BY id", (self.user_id,))
        return [Digest(*row) for row in rows]

    def record_sent(self, digest_id: int, sent_to: str) -> None:
        with self._writing("record a sent digest") as conn:
            conn.execute("UPDATE digests SET sent_at=?, sent_to=? WHERE user_id=? AND id=? AND sent_at IS NULL",
                         (time.time(), sent_to, self.user_id, digest_id))
