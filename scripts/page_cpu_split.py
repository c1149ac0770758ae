"""`bench lexical`'s result pages (its 125 queries, keyword mode, 20 hits with facets and
highlights) on a data dir, timed in CPU time: each stage (search/stages.py) and the whole page
in the thread's CPU seconds, best of three passes after a warm-up pass. On a busy shared machine
wall time measures the machine; CPU time moves far less (docs/search.md, "Result pages").

    python scripts/page_cpu_split.py D [SET]

SET: one of bench lexical's query sets alone (s2cs_queries: the 100 short log queries;
knownitem_en: the 25 known-item descriptions); all 125 when left out.
"""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path

import papersift.search.stages as stages
from papersift.bench.lexical import TOP_K, bench_query_sets
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest


def main(data_dir: Path, query_set: str | None = None) -> None:
    stages.time = types.SimpleNamespace(perf_counter=time.thread_time)  # type: ignore[assignment]  # stages in CPU time
    service = SearchService(data_dir)
    sets = bench_query_sets()
    queries = sets[query_set] if query_set else [query for chosen in sets.values() for query in chosen]

    def page(query: str) -> None:
        service.search(SearchRequest(query=query, mode="keyword", size=TOP_K))

    for query in queries:
        page(query)
    best: tuple[float, dict[str, float]] | None = None
    for _ in range(3):
        split: dict[str, float] = {}
        started = time.thread_time()
        for query in queries:
            with stages.timed() as seconds:
                page(query)
            for name, value in seconds.items():
                split[name] = split.get(name, 0.0) + value
        total = time.thread_time() - started
        if best is None or total < best[0]:
            best = (total, split)
    assert best is not None
    total, split = best
    parts = ", ".join(f"{name} {value / len(queries) * 1000:.3f}"
                      for name, value in sorted(split.items(), key=lambda item: -item[1]))
    print(f"{len(queries)} pages: CPU {total / len(queries) * 1000:.3f} ms a page; {parts}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
