"""Library imports running at once: one per user, and a few per server.

An import parses the whole file and matches every entry (seconds of one core for a large
file): a user who starts several at once, or many users together, could otherwise hold every
worker thread and the memory of each file. A request past either bound is refused before its
body is read: 429 for the user's second import, 503 when the server's slots are taken, each
with Retry-After.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from papersift.api.errors import ApiError

MAX_IMPORTS_PER_SERVER = 2
RETRY_AFTER_S = 10


class ImportSlots:
    def __init__(self, per_server: int = MAX_IMPORTS_PER_SERVER):
        self.per_server = per_server
        self._running: set[str] = set()
        self._lock = threading.Lock()

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        """The user's import slot for the duration (ApiError 429 / 503 when there is none)."""
        headers = {"Retry-After": str(RETRY_AFTER_S)}
        with self._lock:
            if user_id in self._running:
                raise ApiError(429, "import_running", "an import of yours is still running: send the next one when it "
                               "has finished", headers=headers)
            if len(self._running) >= self.per_server:
                raise ApiError(503, "imports_busy", f"{self.per_server} imports are running on this server: try again "
                               "shortly", headers=headers)
            self._running.add(user_id)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(user_id)
