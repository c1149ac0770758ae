"""The "most cited" order: papers by their Google Scholar count, highest first; papers
without a count come after every counted one (unknown is not zero), each group keeping the
order it had (relevance, or newest first for a filter-only browse).

Counts come from the store (papers.citations), read once and re-read when a write has
changed the store's highest seq."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from papersift.store import Store

# How many of a request's matches are put in citation order: all of them for any filter on
# the corpus (44,693 papers), the retrievers' depth for ranked modes.
CITED_DEPTH = 60_000


class CitationCounts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = -1
        self._counts: dict[str, int] = {}

    def counts(self, store: Store) -> dict[str, int]:
        seq = store.max_seq()
        if seq != self._seq:
            with self._lock:
                if seq != self._seq:
                    rows = store.read("SELECT id, citations FROM papers WHERE citations IS NOT NULL")
                    self._counts, self._seq = {row[0]: row[1] for row in rows}, seq
        return self._counts

    def order(self, store: Store, paper_ids: Sequence[str]) -> list[str]:
        counts = self.counts(store)
        counted = sorted((paper_id for paper_id in paper_ids if paper_id in counts), key=lambda pid: -counts[pid])
        return counted + [paper_id for paper_id in paper_ids if paper_id not in counts]
