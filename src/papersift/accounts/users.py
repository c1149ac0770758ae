"""The one module that reads and writes the accounts tables (schema.py): users, invitations,
sessions and API tokens. Every write is one transaction of the store (BEGIN IMMEDIATE), so
concurrent servers and CLI commands queue for SQLite's write lock and a kill loses nothing
committed; an invitation is used up in the same transaction that creates its user.

Secrets handed out (session ids, invitation and API tokens) are `secrets.token_urlsafe(32)`
and stored as their SHA-256 (schema.py says why); the plain value is shown once.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from papersift.accounts import passwords
from papersift.accounts.schema import SCHEMA
from papersift.component_schema import LOCAL_USER
from papersift.store import Store

SESSION_TTL_S = 14 * 24 * 3600
INVITATION_TTL_S = 7 * 24 * 3600
RESET_TTL_S = 24 * 3600
MAX_TOKEN_NAME_CHARS = 100
MAX_USER_AGENT_CHARS = 200
MAX_TOKENS_PER_USER = 50
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
API_TOKEN_PREFIX = "pst_"  # tells a user's API token apart from the server's write token in logs and configs


class AccountError(ValueError):
    """A refused change or login, with a one-line reason a user may read."""


class WrongPassword(AccountError):
    """The current password given to change it is wrong: a guess, counted by the rate limiter."""


@dataclass(frozen=True)
class User:
    user_id: str
    created_at: float
    removed_at: float | None

    def to_dict(self) -> dict:
        return {"name": self.user_id, "created_at": self.created_at, "removed": self.removed_at is not None}


@dataclass(frozen=True)
class Session:
    user_id: str
    session_hash: str  # what CSRF tokens are bound to: a new login is a new session
    expires_at: float


@dataclass(frozen=True)
class SessionInfo:
    """A live session as the account page lists it: never its id nor the id's hash."""

    created_at: float
    expires_at: float
    user_agent: str | None
    current: bool  # the session of the request that asks


@dataclass(frozen=True)
class ApiToken:
    id: int
    name: str
    created_at: float

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "created_at": self.created_at}


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def clean_user_name(name: str) -> str:
    user_id = name.strip().lower()
    if not NAME_PATTERN.fullmatch(user_id):
        raise AccountError(f"user name {name[:80]!r}: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    if user_id == LOCAL_USER:
        raise AccountError(f"user name {LOCAL_USER!r} is reserved for the library of the server without accounts")
    return user_id


class Accounts:
    """The accounts of one data dir. `clock` is injected so tests expire sessions without sleeping."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time):
        self.store, self.clock = store, clock
        SCHEMA.ensure(store, "create the accounts tables")

    @classmethod
    def open(cls, data_dir: str | Path, readonly: bool = False, clock: Callable[[], float] = time.time) -> Accounts:
        return cls(Store(data_dir, readonly=readonly), clock)

    _known_version = 0  # the stored version once it reached the latest (versions only go up)

    def _ready(self, version: int = 1) -> bool:
        """Whether the tables are at `version` (every request asks: read until the latest, then remembered)."""
        if self._known_version < SCHEMA.latest:
            self._known_version = SCHEMA.stored_version(self.store)
        return self._known_version >= version

    def _writing(self, action: str):
        if self.store.readonly:
            raise AccountError("the store is opened read-only")
        return self.store.transaction(action)

    # -- users -------------------------------------------------------------------------
    def add_user(self, name: str, password: str) -> User:
        user_id = clean_user_name(name)
        try:
            password_hash = passwords.hash_password(password)  # before the write lock: ~0.2 s of CPU
        except passwords.PasswordError as problem:
            raise AccountError(str(problem)) from None
        with self._writing(f"add user {user_id}") as conn:
            self._insert_user(conn, user_id, password_hash)
        return self.user(user_id)

    def _insert_user(self, conn: sqlite3.Connection, user_id: str, password_hash: str) -> None:
        if conn.execute("SELECT 1 FROM users WHERE user_id=?", (user_id,)).fetchone():
            raise AccountError(f"user {user_id!r} exists (or existed: a removed user's name is not given out again)")
        now = self.clock()
        conn.execute("INSERT INTO users (user_id, password_hash, created_at, password_changed_at) VALUES (?,?,?,?)",
                     (user_id, password_hash, now, now))

    def user(self, name: str) -> User:
        rows = self.store.read("SELECT user_id, created_at, removed_at FROM users WHERE user_id=?",
                               (name.strip().lower(),)) if self._ready() else []
        if not rows:
            raise AccountError(f"no user {name[:80]!r}")
        return User(rows[0][0], rows[0][1], rows[0][2])

    def users(self, include_removed: bool = False) -> list[User]:
        if not self._ready():
            return []
        rows = self.store.read("SELECT user_id, created_at, removed_at FROM users"
                               + ("" if include_removed else " WHERE removed_at IS NULL") + " ORDER BY user_id")
        return [User(*row) for row in rows]

    def remove_user(self, name: str) -> User:
        """Logins, sessions and tokens end; the row stays (the name is not reused) and so do the
        user's library rows, which nobody can reach any more."""
        user = self.user(name)
        if user.removed_at is not None:
            raise AccountError(f"user {user.user_id!r} is already removed")
        with self._writing(f"remove user {user.user_id}") as conn:
            conn.execute("UPDATE users SET removed_at=?, password_hash=NULL WHERE user_id=?", (self.clock(), user.user_id))
            conn.execute("DELETE FROM sessions WHERE user_id=?", (user.user_id,))
            conn.execute("DELETE FROM api_tokens WHERE user_id=?", (user.user_id,))
            conn.execute("DELETE FROM password_resets WHERE user_id=?", (user.user_id,))
        return self.user(user.user_id)

    def _verify(self, name: str, password: str) -> tuple[str, str | None] | None:
        """(user id, stored hash) when the password is right (the work is the same for unknown names)."""
        user_id = name.strip().lower()
        rows = self.store.read("SELECT password_hash FROM users WHERE user_id=? AND removed_at IS NULL",
                               (user_id,)) if self._ready() and len(user_id) <= 64 else []
        stored = rows[0][0] if rows else None
        return (user_id, stored) if passwords.verify(stored, password) else None

    def check_password(self, name: str, password: str) -> str | None:
        """The user id when the password is right; a hash of an older cost is renewed."""
        found = self._verify(name, password)
        if found is None:
            return None
        user_id, stored = found
        if stored is not None and passwords.needs_rehash(stored):
            self._set_hash(user_id, passwords.hash_password(password))
        return user_id

    def _set_hash(self, user_id: str, password_hash: str) -> None:
        with self._writing(f"set the password of {user_id}") as conn:
            conn.execute("UPDATE users SET password_hash=?, password_changed_at=? WHERE user_id=?",
                         (password_hash, self.clock(), user_id))

    def change_password(self, user_id: str, old: str, new: str, keep_session: str | None = None) -> None:
        """Needs the old password; every other session of the user ends (a stolen one with it)."""
        found = self._verify(user_id, old)  # no renewal of the old hash: it is replaced below
        if found is None or found[0] != user_id:
            raise WrongPassword("the current password is wrong")
        try:
            password_hash = passwords.hash_password(new)
        except passwords.PasswordError as problem:
            raise AccountError(str(problem)) from None
        with self._writing(f"change the password of {user_id}") as conn:
            conn.execute("UPDATE users SET password_hash=?, password_changed_at=? WHERE user_id=?",
                         (password_hash, self.clock(), user_id))
            conn.execute("DELETE FROM sessions WHERE user_id=? AND session_hash IS NOT ?", (user_id, keep_session))

    # -- invitations -------------------------------------------------------------------
    def invite(self, ttl_s: float = INVITATION_TTL_S) -> tuple[str, float]:
        """A single-use sign-up token and when it expires."""
        token, now = secrets.token_urlsafe(32), self.clock()
        with self._writing("create an invitation") as conn:
            conn.execute("INSERT INTO invitations (token_hash, created_at, expires_at) VALUES (?,?,?)",
                         (digest(token), now, now + ttl_s))
        return token, now + ttl_s

    def invitation_valid(self, token: str) -> bool:
        if not self._ready() or not token:
            return False
        rows = self.store.read("SELECT expires_at, used_at FROM invitations WHERE token_hash=?", (digest(token),))
        return bool(rows) and rows[0][1] is None and rows[0][0] > self.clock()

    def sign_up(self, token: str, name: str, password: str) -> User:
        user_id = clean_user_name(name)
        try:
            password_hash = passwords.hash_password(password)
        except passwords.PasswordError as problem:
            raise AccountError(str(problem)) from None
        with self._writing(f"sign up {user_id}") as conn:
            row = conn.execute("SELECT expires_at, used_at FROM invitations WHERE token_hash=?", (digest(token),)).fetchone()
            if row is None or row[1] is not None or row[0] <= self.clock():
                raise AccountError("this invitation is unknown, used or expired: ask for a new one")
            self._insert_user(conn, user_id, password_hash)
            conn.execute("UPDATE invitations SET used_at=?, used_by=? WHERE token_hash=?", (self.clock(), user_id, digest(token)))
        return self.user(user_id)

    # -- password resets (an admin's link for a user who lost the password) -------------
    def create_reset(self, name: str, ttl_s: float = RESET_TTL_S) -> tuple[str, float]:
        """A single-use reset token for this user and when it expires; any earlier unused
        link of the user stops working (the newest one the admin handed out is the one)."""
        user = self.user(name)
        if user.removed_at is not None:
            raise AccountError(f"user {user.user_id!r} is removed")
        token, now = secrets.token_urlsafe(32), self.clock()
        with self._writing(f"create a password reset for {user.user_id}") as conn:
            conn.execute("DELETE FROM password_resets WHERE user_id=? AND used_at IS NULL", (user.user_id,))
            conn.execute("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?,?,?,?)",
                         (digest(token), user.user_id, now, now + ttl_s))
        return token, now + ttl_s

    _RESET_QUERY = ("SELECT r.user_id, r.expires_at, r.used_at FROM password_resets r JOIN users u"
                    " ON u.user_id = r.user_id WHERE r.token_hash=? AND u.removed_at IS NULL")

    def _live_reset(self, row) -> str | None:
        """The user id of a reset row that is unused and unexpired."""
        return row[0] if row is not None and row[2] is None and row[1] > self.clock() else None

    def reset_user(self, token: str) -> str | None:
        """The user a live reset token is for (None: unknown, used, expired or the user removed)."""
        if not token or len(token) > 100 or not self._ready(2):
            return None
        rows = self.store.read(self._RESET_QUERY, (digest(token),))
        return self._live_reset(rows[0] if rows else None)

    def reset_password(self, token: str, new: str) -> str:
        """Set the password of the token's user, use the token up and end every session of the
        user (whoever held one, with the old password or a stolen cookie, is out), in one
        transaction; the user id. API tokens stay: the user revokes them on /account."""
        try:
            password_hash = passwords.hash_password(new)
        except passwords.PasswordError as problem:
            raise AccountError(str(problem)) from None
        with self._writing("reset a password") as conn:
            found = conn.execute(self._RESET_QUERY, (digest(token),)).fetchone() if 0 < len(token) <= 100 else None
            user_id, now = self._live_reset(found), self.clock()
            if user_id is None:
                raise AccountError("this reset link is unknown, used or expired: ask the admin for a new one")
            conn.execute("UPDATE users SET password_hash=?, password_changed_at=? WHERE user_id=?", (password_hash, now, user_id))
            conn.execute("UPDATE password_resets SET used_at=? WHERE token_hash=?", (now, digest(token)))
            conn.execute("DELETE FROM sessions WHERE user_id=?", (user_id,))
        return user_id

    # -- sessions ----------------------------------------------------------------------
    def start_session(self, user_id: str, ttl_s: float = SESSION_TTL_S, user_agent: str | None = None) -> str:
        """A new session's id (the cookie's value); expired sessions are dropped on the way."""
        session_id, now = secrets.token_urlsafe(32), self.clock()
        agent = " ".join((user_agent or "").split())[:MAX_USER_AGENT_CHARS] or None
        with self._writing(f"log in {user_id}") as conn:
            conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))
            conn.execute("INSERT INTO sessions (session_hash, user_id, created_at, expires_at, user_agent)"
                         " VALUES (?,?,?,?,?)", (digest(session_id), user_id, now, now + ttl_s, agent))
        return session_id

    def sessions(self, user_id: str, current: str | None = None) -> list[SessionInfo]:
        """The user's live sessions, newest first; `current` (a session hash) is marked."""
        if not self._ready(3):
            return []
        rows = self.store.read("SELECT session_hash, created_at, expires_at, user_agent FROM sessions"
                               " WHERE user_id=? AND expires_at > ? ORDER BY created_at DESC", (user_id, self.clock()))
        return [SessionInfo(row[1], row[2], row[3], row[0] == current) for row in rows]

    def end_other_sessions(self, user_id: str, keep_session: str | None) -> int:
        """End every session of the user but `keep_session` (a session hash); how many ended."""
        with self._writing(f"end the other sessions of {user_id}") as conn:
            return conn.execute("DELETE FROM sessions WHERE user_id=? AND session_hash IS NOT ?",
                                (user_id, keep_session)).rowcount

    def session(self, session_id: str) -> Session | None:
        """The live session with this id (None: unknown, ended or expired)."""
        if not session_id or len(session_id) > 100 or not self._ready():
            return None
        rows = self.store.read("SELECT s.user_id, s.session_hash, s.expires_at FROM sessions s JOIN users u"
                               " ON u.user_id = s.user_id WHERE s.session_hash=? AND u.removed_at IS NULL",
                               (digest(session_id),))
        if not rows or rows[0][2] <= self.clock():
            return None
        return Session(rows[0][0], rows[0][1], rows[0][2])

    def end_session(self, session_id: str) -> bool:
        with self._writing("log out") as conn:
            return conn.execute("DELETE FROM sessions WHERE session_hash=?", (digest(session_id),)).rowcount > 0

    # -- API tokens --------------------------------------------------------------------
    def create_api_token(self, user_id: str, name: str) -> tuple[ApiToken, str]:
        """The token's record and its value, which is shown this once."""
        name = " ".join(name.split())[:MAX_TOKEN_NAME_CHARS] or "token"
        value, now = API_TOKEN_PREFIX + secrets.token_urlsafe(32), self.clock()
        with self._writing(f"create an API token for {user_id}") as conn:
            count = conn.execute("SELECT COUNT(*) FROM api_tokens WHERE user_id=?", (user_id,)).fetchone()[0]
            if count >= MAX_TOKENS_PER_USER:
                raise AccountError(f"at most {MAX_TOKENS_PER_USER} API tokens per user: revoke one first")
            cursor = conn.execute("INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (?,?,?,?)",
                                  (user_id, name, digest(value), now))
        return ApiToken(int(cursor.lastrowid or 0), name, now), value

    def api_tokens(self, user_id: str) -> list[ApiToken]:
        if not self._ready():
            return []
        rows = self.store.read("SELECT id, name, created_at FROM api_tokens WHERE user_id=? ORDER BY id", (user_id,))
        return [ApiToken(*row) for row in rows]

    def revoke_api_token(self, user_id: str, token_id: int) -> bool:
        """Only the user's own token: another user's id revokes nothing."""
        with self._writing(f"revoke an API token of {user_id}") as conn:
            return conn.execute("DELETE FROM api_tokens WHERE user_id=? AND id=?", (user_id, token_id)).rowcount > 0

    def user_of_api_token(self, value: str) -> str | None:
        if not value.startswith(API_TOKEN_PREFIX) or len(value) > 100 or not self._ready():
            return None
        rows = self.store.read("SELECT t.user_id FROM api_tokens t JOIN users u ON u.user_id = t.user_id"
                               " WHERE t.token_hash=? AND u.removed_at IS NULL", (digest(value),))
        return rows[0][0] if rows else None
