"""What a result page of a long query costs, call by call (issue #32): the tantivy calls of
`bench lexical`'s pages (compiling, the all-words try, the relaxed query at several depths, the
same query unscored), the rows and facets of a relaxed page, and the highlighter's scans of a
page's text against the alternatives tried (one alternation, a trie of the prefixes, str.count).
CPU time of this thread, mean ms a page over a query set, best of the repeats' mean.

    python scripts/long_page_costs.py D [SET]    # SET: knownitem_en (default) or s2cs_queries
"""

from __future__ import annotations

import gc
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from papersift.bench.lexical import TOP_K, bench_query_sets
from papersift.search.backend import HIGHLIGHT_FIELDS, query_terms
from papersift.search.highlight import MARK_START, Highlighter, _candidate_prefixes, _lower_in_place, escape_html
from papersift.search.query import parse_query
from papersift.search.service import RELAXED_DEPTH, SearchService
from papersift.search.tantivy_backend import FACET_AGGREGATION, MAX_MARKED_TERMS, _counted_facets_of_rows, _rows_of
from papersift.search.types import SearchRequest

REPEATS = 20


def _mark(marked: frozenset[str], texts: list[str]) -> list[str]:
    return Highlighter(marked).mark_many(texts)  # type: ignore[arg-type]


def _scan_each(patterns: list[re.Pattern], text: str) -> list:
    return [list(pattern.finditer(text)) for pattern in patterns]


def _first_letter_pattern(prefix: str) -> re.Pattern:
    """A prefix's scan as it was before the rarest-letter anchor (highlight._word_start_pattern)."""
    chars = "." * len(prefix)
    return re.compile(f"{re.escape(prefix)}(?<![^\\W_]{chars})(?<!&{chars})(?<!&#{chars})[^\\W_]*")


def _count_each(prefixes: tuple[str, ...], text: str) -> list[int]:
    return [text.count(prefix) for prefix in prefixes]


def main(data_dir: Path, query_set: str) -> None:
    service = SearchService(data_dir)
    backend = service.backend
    live = backend._current()  # type: ignore[attr-defined]
    searcher = live.searcher
    texts = bench_query_sets()[query_set]
    costs: dict[str, float] = {}

    def timed(name: str, call: Callable[..., object], *args: object, **options: object) -> None:
        call(*args, **options)
        best = float("inf")
        for _ in range(3):
            started = time.thread_time()
            for _ in range(REPEATS):
                call(*args, **options)
            best = min(best, (time.thread_time() - started) / REPEATS)
        costs[name] = costs.get(name, 0.0) + best

    gc.disable()
    pages = 0
    for text in texts:
        query = parse_query(text)
        plan = backend.plan(query)
        timed("compile the all-words query", backend.plan, query)
        timed("all-words try (top 20, scored)", searcher.search, plan.scored, TOP_K, count=False)
        if searcher.search(plan.scored, TOP_K, count=False).hits:
            timed("facet aggregation (total and facets)", searcher.aggregate, plan.matching, FACET_AGGREGATION)
        else:
            relaxed = backend.plan(query.relaxed())
            timed("compile the relaxed query", backend.plan, query.relaxed())
            for depth in (RELAXED_DEPTH, TOP_K, 1):
                timed(f"relaxed query, best {depth}", searcher.search, relaxed.scored, depth, count=False)
            timed(f"relaxed query, {RELAXED_DEPTH} by year (unscored)", searcher.search, relaxed.scored, RELAXED_DEPTH,
                  count=False, order_by_field="year")
            hits = searcher.search(relaxed.scored, RELAXED_DEPTH, count=False).hits
            addresses = [address for _, address in hits]
            timed("rows of the 200 (fast field)", _rows_of, searcher, addresses)
            timed("facets of the 200 rows", _counted_facets_of_rows, live, _rows_of(searcher, addresses))
            query = query.relaxed()
        response = service.search(SearchRequest(query=text, mode="keyword", size=TOP_K))
        papers = [hit.paper for hit in response.hits]
        page_rows = live.rows.rows_of_ids([paper.id for paper in papers])
        timed("records and Paper objects of the page", live.rows.papers, page_rows)
        marked = query_terms(query)
        if len(marked) > MAX_MARKED_TERMS:
            marked = frozenset(sorted(marked, key=lambda term: (searcher.doc_freq("text", term), term))[:MAX_MARKED_TERMS])
        page_texts = [getattr(paper, name) or "" for paper in papers for name in HIGHLIGHT_FIELDS]
        timed("highlights (mark_many)", _mark, marked, page_texts)
        lowered = _lower_in_place(escape_html(MARK_START.join(page_texts)))
        highlighter = Highlighter(marked)
        prefixes = _candidate_prefixes(marked)
        timed("  scans: one pattern per prefix, from its rarest letter (as today)", _scan_each,
              [pattern for pattern, _ in highlighter._patterns], lowered)
        first_letter = [_first_letter_pattern(prefix) for prefix in prefixes]
        timed("  scans: one pattern per prefix, from its first letter (before)", _scan_each, first_letter, lowered)
        alternation = re.compile("(?:" + "|".join(pattern.pattern[:-len("[^\\W_]*")] for pattern in first_letter)
                                 + ")[^\\W_]*") if prefixes else None
        if alternation is not None:
            timed("  scans: one alternation of the prefixes", _scan_each, [alternation], lowered)
        timed("  str.count of each prefix (no word starts)", _count_each, prefixes, lowered)
        pages += 1
    print(f"{pages} pages ({query_set}), mean CPU ms a page (a call's cost over the pages where it runs, / {pages}):")
    for name, seconds in costs.items():
        print(f"  {name}: {seconds / pages * 1000:.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "knownitem_en")
