"""papersift bench floor: calibrate each model's relevance floor on a data dir's vectors.

The floor (search/semantic.py RELEVANCE_FLOORS) is the lowest best cosine that QUERIES random
letter strings (one or two "words" of 5-10 letters, seed SEED) reach over the data dir's papers
(and, for queries with Chinese characters, CJK_QUERIES runs of 2-6 random CJK characters):
the weakest best match a query that means nothing gets. A hit below it is no evidence of
relevance. Beside it the report gives the spread of those best scores (median, p90, p99, max) and, as
a check that real text clears it, the share of papers whose own title, asked as a query,
finds that paper above the floor (TITLES papers with abstracts drawn with the same seed).
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SEED = 0
QUERIES = 200
TITLES = 200


CJK_QUERIES = 100


def nonsense(rng: random.Random) -> str:
    return " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 10)))
                    for _ in range(rng.randint(1, 2)))


def cjk_nonsense(rng: random.Random) -> str:
    return "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(2, 6)))


def calibrate(data_dir: Path, model: str, queries: int = QUERIES, titles: int = TITLES, seed: int = SEED) -> dict:
    from papersift.search.query import ParsedQuery
    from papersift.search.semantic import DenseRetriever
    from papersift.search.service import SearchService
    from papersift.store import Store

    service = SearchService(data_dir)
    dense = DenseRetriever(data_dir, service, model=model, floor=None)
    index = dense.index
    if index is None:
        raise ValueError(f"no {model} vectors in {data_dir} (run 'papersift embed --model {model}')")
    rng = random.Random(seed)
    best = np.array([scores[0][1] for scores in (dense.nearest(nonsense(rng), ParsedQuery(), 1) for _ in range(queries))
                     if scores])
    floor = float(best.min())
    cjk_rng = random.Random(seed)
    cjk_best = np.array([scores[0][1] for scores in (dense.nearest(cjk_nonsense(cjk_rng), ParsedQuery(), 1)
                                                     for _ in range(CJK_QUERIES)) if scores])
    store = Store(data_dir, readonly=True)
    try:
        title_only = set(store.ids_without_abstract())  # dense search leaves them out (search/semantic.py)
        embedded = sorted(paper_id for paper_id in index.row_of if paper_id not in title_only)
        sample = rng.sample(embedded, min(titles, len(embedded)))
        papers = store.get_many(sample)
    finally:
        store.close()
    own = []
    for paper_id in sample:
        paper = papers.get(paper_id)
        if paper is None:
            continue
        found = dict(dense.nearest(paper.title, ParsedQuery(), 100))
        own.append(found.get(paper_id, -1.0) >= floor)
    return {"model": model, "rows": len(index), "coverage": round(dense.coverage(), 4), "queries": len(best),
            "floor": round(floor, 3), "median": round(float(np.median(best)), 3), "p90": round(float(np.quantile(best, 0.9)), 3),
            "p99": round(float(np.quantile(best, 0.99)), 3), "max": round(float(best.max()), 3),
            "own_title_above_floor": round(sum(own) / max(len(own), 1), 3), "titles": len(own),
            "cjk_floor": round(float(cjk_best.min()), 3), "cjk_median": round(float(np.median(cjk_best)), 3)}


def run(data_dir: Path, models: Sequence[str]) -> dict:
    return {"data_dir": str(data_dir), "seed": SEED, "models": [calibrate(data_dir, model) for model in models]}


def markdown(report: dict) -> str:
    lines = [f"# bench floor ({report['data_dir']}, seed {report['seed']})", "",
             ("| model | vectors | coverage | floor (lowest best of gibberish) | median | p90 | p99 | max "
              "| own title above floor | CJK floor | CJK median |"), "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["models"]:
        lines.append(f"| {row['model']} | {row['rows']:,} | {row['coverage']:.1%} | {row['floor']:.3f} | {row['median']:.3f} "
                     f"| {row['p90']:.3f} "
                     f"| {row['p99']:.3f} | {row['max']:.3f} | {row['own_title_above_floor']:.1%} of {row['titles']} "
                     f"| {row['cjk_floor']:.3f} | {row['cjk_median']:.3f} |")
    return "\n".join(lines) + "\n"
