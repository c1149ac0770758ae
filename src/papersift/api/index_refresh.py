"""Group commit for API writes: a POST answers once its papers are in the live keyword index,
but concurrent POSTs share index updates instead of queueing one update each.

Index updates are serialized (one writer lock per data dir), and one update costs the same
for one new paper as for a hundred. With every POST running its own update, five writers
beside a `papersift index` loop waited ~10 s each on the full corpus. Here the first POST
that needs an update runs it (the leader); POSTs that commit meanwhile wait for it, and
when it ends, one of those whose seq it did not cover runs the next, which covers them all.
An update covers every seq committed before it started (the store allocates seqs under its
write lock, in commit order), so `covered` is the store's highest seq read just before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class GroupRefresher:
    """`wait_indexed(seq)` returns once an update that started after `seq` was committed has
    published; `update()` (index what the store holds, then make readers see it) runs in the
    caller's thread, at most one at a time."""

    def __init__(self, update: Callable[[], None], highest_seq: Callable[[], int]):
        self._update = update
        self._highest_seq = highest_seq
        self._changed = threading.Condition()
        self._covered = 0  # every seq up to this one is in the published index
        self._running = False
        self.updates = 0  # how many updates ran (the tests check that writers share them)

    def wait_indexed(self, seq: int) -> None:
        with self._changed:
            while self._covered < seq:
                if self._running:
                    self._changed.wait()
                    continue
                self._running = True
                self._changed.release()
                try:
                    covered = self._highest_seq()
                    self._update()
                finally:
                    self._changed.acquire()
                    self._running = False
                    self._changed.notify_all()
                # Only reached when the update succeeded; a failure leaves `covered` as it was,
                # so the waiters it would have covered run the next update themselves.
                self._covered = max(self._covered, covered)
                self.updates += 1
