"""Password hashing: argon2id through argon2-cffi (the `accounts` extra), its default cost
(RFC 9106's second recommendation: t=3, 64 MiB, p=4), re-hashed at login when the cost changes.

A login for a name that has no password is verified against a dummy hash all the same, so the
time of the answer does not say which names exist.
"""

from __future__ import annotations

from functools import lru_cache

from papersift import extras

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 1024  # argon2 takes any length; this bounds the work a request can ask for


class PasswordError(ValueError):
    """A password the policy refuses (too short, too long)."""


def check_policy(password: str) -> None:
    if len(password) < MIN_PASSWORD_CHARS:
        raise PasswordError(f"a password needs at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise PasswordError(f"a password has at most {MAX_PASSWORD_CHARS} characters")


@lru_cache(maxsize=1)
def hasher():
    extras.require("accounts", "accounts (serve --accounts, papersift users)")
    from argon2 import PasswordHasher

    return PasswordHasher()


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return hasher().hash("not a password of anyone")


def hash_password(password: str) -> str:
    check_policy(password)
    return hasher().hash(password)


def verify(stored_hash: str | None, password: str) -> bool:
    """Whether `password` matches (False for a missing hash, after the same work)."""
    from argon2.exceptions import InvalidHashError, VerificationError

    if len(password) > MAX_PASSWORD_CHARS:
        return False
    try:
        return hasher().verify(stored_hash or _dummy_hash(), password) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    return hasher().check_needs_rehash(stored_hash)
