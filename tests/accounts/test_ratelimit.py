"""papersift.accounts.ratelimit: failed logins per account and per address, in a sliding window
moved by an injected clock (no sleeping)."""

from __future__ import annotations

from account_clients import Clock
from papersift.accounts.ratelimit import LoginLimiter


def test_an_account_is_refused_after_its_failures_until_the_oldest_leaves_the_window():
    clock = Clock()
    limiter = LoginLimiter(clock=clock, window_s=900, per_account=3, per_address=100)
    for _ in range(3):
        assert limiter.check("alice", "10.0.0.1") is None
        limiter.failed("alice", "10.0.0.1")
        clock.advance(10)
    refusal = limiter.check("alice", "10.0.0.2")  # another address: the account's limit holds
    assert refusal is not None and refusal.retry_after_s == 900 - 30
    assert limiter.check("bob", "10.0.0.1") is None
    clock.advance(refusal.retry_after_s - 1)
    assert limiter.check("alice", "10.0.0.1") is not None
    clock.advance(1)
    assert limiter.check("alice", "10.0.0.1") is None


def test_an_address_is_refused_after_failures_on_many_accounts():
    clock = Clock()
    limiter = LoginLimiter(clock=clock, window_s=900, per_account=5, per_address=4)
    for name in ("a", "b", "c", "d"):
        limiter.failed(name, "10.0.0.9")
    refusal = limiter.check("e", "10.0.0.9")
    assert refusal is not None and refusal.retry_after_s == 900
    assert limiter.check("e", "10.0.0.8") is None


def test_a_success_clears_the_accounts_failures():
    limiter = LoginLimiter(clock=Clock(), per_account=2)
    limiter.failed("alice", "x")
    limiter.succeeded("alice")
    limiter.failed("alice", "x")
    assert limiter.check("alice", "x") is None


def test_an_attempt_counts_before_the_password_is_known_so_parallel_guesses_cannot_all_pass():
    limiter = LoginLimiter(clock=Clock(), per_account=3, per_address=10)
    in_flight = [limiter.attempt("alice", "10.0.0.1") for _ in range(5)]  # none has finished verifying
    assert in_flight[:3] == [None] * 3 and all(refusal is not None for refusal in in_flight[3:])


def test_a_right_password_takes_its_attempt_back_from_the_address():
    limiter = LoginLimiter(clock=Clock(), per_account=5, per_address=2)
    for name in ("alice", "bob", "carol"):
        assert limiter.attempt(name, "10.0.0.1") is None
        limiter.succeeded(name, "10.0.0.1")
    assert limiter.check("dave", "10.0.0.1") is None
