"""papersift.accounts.passwords: argon2id hashes, the length policy, and no answer for a
missing hash."""

from __future__ import annotations

import pytest

from papersift.accounts import passwords

REAL_HASHER = passwords.hasher  # taken at collection, before conftest's cheap_password_hashing swaps it


def test_a_hash_verifies_its_password_only():
    stored = passwords.hash_password("correct horse battery")
    assert stored.startswith("$argon2id$")
    assert passwords.verify(stored, "correct horse battery")
    assert not passwords.verify(stored, "correct horse batterz")
    assert not passwords.verify(None, "correct horse battery")
    assert not passwords.verify("not a hash", "correct horse battery")
    assert not passwords.needs_rehash(stored)


@pytest.mark.parametrize("password", ["", "nine-char", "x" * (passwords.MAX_PASSWORD_CHARS + 1)])
def test_the_policy_refuses_short_and_huge_passwords(password):
    with pytest.raises(passwords.PasswordError):
        passwords.hash_password(password)


def test_the_served_cost_is_rfc_9106s_second_recommendation():
    real = REAL_HASHER()
    assert passwords.hasher() is not real  # the tests' cheap one is in place
    assert (real.type.name, real.time_cost, real.memory_cost, real.parallelism) == ("ID", 3, 64 * 1024, 4)
    assert real.hash("a-long-password").startswith("$argon2id$v=19$m=65536,t=3,p=4$")
