"""Login rate limiting: failed logins per account and per client address in a sliding window.

In memory, per server process, on purpose: a failed login then costs no write (a stream of
wrong passwords cannot queue on the store's write lock), and an attacker cannot restart the
server to reset it. A restart forgets the counts; docs/accounts.md says so. The clock is
injected so tests move time instead of sleeping.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_S = 15 * 60
MAX_FAILURES_PER_ACCOUNT = 5
MAX_FAILURES_PER_ADDRESS = 20
MAX_TRACKED_KEYS = 10_000  # bounds the memory a flood of invented names can take


@dataclass(frozen=True)
class Refusal:
    retry_after_s: int  # whole seconds until an attempt is counted again


class LoginLimiter:
    def __init__(self, clock: Callable[[], float] = time.time, window_s: float = WINDOW_S,
                 per_account: int = MAX_FAILURES_PER_ACCOUNT, per_address: int = MAX_FAILURES_PER_ADDRESS):
        self.clock, self.window_s = clock, window_s
        self.limits = {"account": per_account, "address": per_address}
        self._failures: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        failures = self._failures.get(key)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        return failures

    def attempt(self, account: str, address: str) -> Refusal | None:
        """Before the password is looked at: a Refusal when either key used up its window, else
        the attempt is counted as a failure at once (succeeded() takes it back), so parallel
        requests cannot all pass the check while their passwords are being verified."""
        with self._lock:
            refusal = self._refusal(account, address, self.clock())
            if refusal is None:
                self._record(account, address, self.clock())
            return refusal

    def check(self, account: str, address: str) -> Refusal | None:
        """A Refusal when either key used up its window (counts nothing)."""
        with self._lock:
            return self._refusal(account, address, self.clock())

    def _refusal(self, account: str, address: str, now: float) -> Refusal | None:
        waits = []
        for kind, value in (("account", account), ("address", address)):
            failures = self._recent((kind, value), now)
            if len(failures) >= self.limits[kind]:
                waits.append(failures[-self.limits[kind]] + self.window_s - now)
        return Refusal(max(1, math.ceil(max(waits)))) if waits else None

    def failed(self, account: str, address: str) -> None:
        with self._lock:
            self._record(account, address, self.clock())

    def _record(self, account: str, address: str, now: float) -> None:
        for key in (("account", account), ("address", address)):
            failures = self._recent(key, now)
            failures.append(now)
            self._failures[key] = failures
            self._failures.move_to_end(key)
        while len(self._failures) > MAX_TRACKED_KEYS:
            self._failures.popitem(last=False)

    def succeeded(self, account: str, address: str | None = None) -> None:
        """The password was right: the account's failures are forgotten, and the address's
        count loses the attempt() that counted this login in advance."""
        with self._lock:
            self._failures.pop(("account", account), None)
            failures = self._failures.get(("address", address)) if address is not None else None
            if failures:
                failures.pop()
