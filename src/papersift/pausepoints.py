"""Named points where a process can be told to stop and wait, so crash tests kill it at a
known moment instead of a lucky one.

With PAPERSIFT_PAUSE_AT="<point>:<n>" in its environment, the process's n-th pass through
<point> writes "paused at <point>:<n>" to stderr and then waits for a signal forever; the
test reads that line and sends SIGKILL. Without the variable a point costs one dictionary
lookup. Points: "store-before-commit" (a batch written, its COMMIT not yet run) and
"ingest-batch-committed" (a batch committed), "library-before-commit" (a library change written,
its COMMIT not yet run), "follow-before-commit" (a saved search, mark, token or digest written,
its COMMIT not yet run), "termlexicon-staged" (the term lexicon's staged file made, not yet filled).
"""

from __future__ import annotations

import os
import signal
import sys

PAUSE_ENV = "PAPERSIFT_PAUSE_AT"
_passes: dict[str, int] = {}


def pause_point(name: str) -> None:
    wanted = os.environ.get(PAUSE_ENV)
    if not wanted:
        return
    point, _, count = wanted.rpartition(":")
    if point != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if str(_passes[name]) != count.strip():
        return
    sys.stderr.write(f"paused at {name}:{count}\n")
    sys.stderr.flush()
    while True:
        signal.pause()
