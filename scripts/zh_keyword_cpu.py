"""CPU per Chinese keyword page in one warm process: the zhterms half-A zh queries through
SearchService.search (as `papersift bench zhterms` asks them), after 20 warm-up queries.
Compare two checkouts with PYTHONPATH=<other>/src (docs/crosslingual.md, branch zhread6):

    python scripts/zh_keyword_cpu.py /work/data/s6
"""

from __future__ import annotations

import sys
import time

import papersift
from papersift.bench import zhterms
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest

data_dir = sys.argv[1]
queries, _ = zhterms.load(zhterms.DEFAULT_DATASET)
queries = [q for q in queries if q.lang == "zh" and zhterms.term_half(q.term) == "A"]
service = SearchService(data_dir)
for query in queries[:20]:
    service.search(SearchRequest(query=query.text, mode="keyword", size=10))
cpu, wall = time.process_time(), time.perf_counter()
for query in queries:
    service.search(SearchRequest(query=query.text, mode="keyword", size=10))
print(papersift.__file__, f"CPU {1000 * (time.process_time() - cpu) / len(queries):.1f} ms a page,",
      f"wall {1000 * (time.perf_counter() - wall) / len(queries):.1f} ms")
