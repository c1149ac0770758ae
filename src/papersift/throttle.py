"""At most once per interval: how long-running readers poll for a swapped-in index."""

from __future__ import annotations

import threading
import time

# How often a server's per-request readers look at the data dir for a change (a new index
# generation, store writes query intent reads, new predictions, a new vocabulary): a check
# costs a statement or a stat, and a page of results costs ~1 ms.
RECHECK_S = 1.0


class Throttle:
    """`due()` is true when `interval` seconds have passed since it last was (or when forced),
    and only for one caller: readers on many threads look for a new index generation once."""

    def __init__(self, interval: float):
        self.interval = interval
        self._last = float("-inf")
        self._lock = threading.Lock()

    def due(self, force: bool = False) -> bool:
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return False  # the common answer, without the lock (a page asks ~8 times: ~0.8% of it)
        with self._lock:
            if not force and now - self._last < self.interval:
                return False
            self._last = now
            return True
