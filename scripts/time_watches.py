"""Figures for docs/feeds.md: listing a watch (saved search, venue) with its new papers, timed,
on a read-only data dir (the full corpus). Usage: PYTHONPATH=src python scripts/time_watches.py DATA_DIR"""
import statistics
import sys
import time

from papersift.follow.saved import SavedQuery
from papersift.follow.state import Following
from papersift.follow.watches import list_watch
from papersift.search.service import SearchService
from papersift.store import Store

data_dir = sys.argv[1]
service = SearchService(data_dir)
following = Following(Store(data_dir, readonly=True))
queries = ["diffusion models", "graph neural network", "reinforcement learning from human feedback",
           "contrastive learning", "large language model reasoning", "federated learning privacy",
           "vision transformer", "bayesian optimization", "knowledge distillation", "adversarial robustness"]
for mode in ("keyword", "hybrid"):
    times = []
    for q in queries:
        request = SavedQuery(q=q, mode=mode, sort="newest").to_request(100)
        start = time.perf_counter()
        papers = [hit.paper for hit in service.search(request).hits]
        seqs = following.store.read(f"SELECT id, seq FROM papers WHERE id IN ({','.join('?' * len(papers))})",
                                    [p.id for p in papers])
        times.append((time.perf_counter() - start) * 1000)
    print(f"{mode}: saved-search listing (100 papers + seqs) median {statistics.median(times[1:]):.0f} ms, "
          f"max {max(times[1:]):.0f} ms over {len(times) - 1} queries (first, warm-up: {times[0]:.0f} ms)")
times = []
for venue in ("ICLR", "NeurIPS", "ICML", "ACL", "COLM"):
    start = time.perf_counter()
    listing = list_watch(service, following, f"venue:{venue}")
    times.append((time.perf_counter() - start) * 1000)
print(f"venue watch listing: median {statistics.median(times):.0f} ms over {len(times)} venues")
