"""Where a result page's time goes: named stages, timed only while a caller asks.

The search path marks its stages (`with stage("rows"): ...`); a benchmark wraps a call in
`timed()` and gets seconds per stage. Stages are exclusive: entering a stage pauses the one
it runs inside, so the figures add up to the time spent in stages and the rest of the call
("other") is what no stage names. Outside `timed()` a stage costs one context-variable read.
The stages: query (parse and compile), encode (a model's query embedding), engine (tantivy
calls), dense (vector search), rows (records from the row store), facets (counting facet
codes and institutions), fusion, reading (a Chinese query's English reading, less its parts
below), highlights. The reading's parts: reading.forms (OpenCC's script forms), reading.lexicon
(composition over the term lexicon), reading.names (Chinese names among the authors),
reading.encode (USE-m3 encodings of a term) and reading.neighbours (the product with the
phrase vectors).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class _Clock:
    __slots__ = ("running", "seconds", "since")

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.running: list[str] = []
        self.since = 0.0

    def switch(self, now: float) -> None:
        if self.running:
            name = self.running[-1]
            self.seconds[name] = self.seconds.get(name, 0.0) + now - self.since
        self.since = now


_CLOCK: ContextVar[_Clock | None] = ContextVar("papersift_stage_clock", default=None)


class stage:
    __slots__ = ("clock", "name")

    def __init__(self, name: str):
        self.name = name
        self.clock = _CLOCK.get()

    def __enter__(self) -> None:
        clock = self.clock
        if clock is not None:
            clock.switch(time.perf_counter())
            clock.running.append(self.name)

    def __exit__(self, *exc: object) -> None:
        clock = self.clock
        if clock is not None:
            clock.switch(time.perf_counter())
            clock.running.pop()


@contextmanager
def timed() -> Iterator[dict[str, float]]:
    """Seconds per stage of what runs inside (this thread or task), plus "other": the rest."""
    clock = _Clock()
    token = _CLOCK.set(clock)
    started = time.perf_counter()
    try:
        yield clock.seconds
    finally:
        _CLOCK.reset(token)
        total = time.perf_counter() - started
        clock.seconds["other"] = max(0.0, total - sum(clock.seconds.values()))
