"""A small thread-safe LRU memo whose concurrent callers of one key share one computation.

Why: embedding a query is the costly step of a semantic or hybrid request (a 1,000-character
Chinese query: e5 over the query, and over each of its Chinese segments for the term
bridge). A page's search, its facet counts and its topic tree all embed the same text, and
five clients sending one query at once would each embed it. With this memo a text is embedded
once: later callers take the stored vector, and callers that arrive while it is being
computed wait for that computation instead of starting their own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Memo(Generic[Value]):
    def __init__(self, maxsize: int = 256):
        self.maxsize = maxsize
        self._values: OrderedDict[Hashable, Value] = OrderedDict()
        self._pending: dict[Hashable, Future] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Value]) -> Value:
        """The value for `key`, computed by `compute()` at most once while it stays stored
        (a failed computation is not stored: its error goes to every caller that waited)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            waited = self._pending.get(key)
            if waited is None:
                pending: Future = Future()
                self._pending[key] = pending
        if waited is not None:
            return waited.result()
        try:
            value = compute()
        except BaseException as error:
            with self._lock:
                del self._pending[key]
            pending.set_exception(error)
            raise
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.maxsize:
                self._values.popitem(last=False)
            del self._pending[key]
        pending.set_result(value)
        return value
