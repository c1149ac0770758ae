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
import re
import string
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SEED = 0
QUERIES = 200
TITLES = 200


CJK_QUERIES = 100
BUCKET_WORDS = (1, 2, 3)
BUCKET_QUERIES = 100
TITLE_STOP = frozenset({"a", "an", "the", "of", "for", "and", "in", "on", "with", "to", "via", "by", "from", "is", "are",
                        "as", "at", "or", "its", "we", "do", "does", "can", "how", "what", "when", "why", "s"})


def nonsense_word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 10)))


def nonsense(rng: random.Random) -> str:
    return " ".join(nonsense_word(rng) for _ in range(rng.randint(1, 2)))


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
    by_words = words_buckets(dense, floor, sample, papers, seed)
    return {"model": model, "rows": len(index), "coverage": round(dense.coverage(), 4), "queries": len(best),
            "floor": round(floor, 3), "median": round(float(np.median(best)), 3), "p90": round(float(np.quantile(best, 0.9)), 3),
            "p99": round(float(np.quantile(best, 0.99)), 3), "max": round(float(best.max()), 3),
            "own_title_above_floor": round(sum(own) / max(len(own), 1), 3), "titles": len(own),
            "cjk_floor": round(float(cjk_best.min()), 3), "cjk_median": round(float(np.median(cjk_best)), 3),
            "by_words": by_words}


def words_buckets(dense, floor: float, sample: list[str], papers: dict, seed: int,
                  per_bucket: int = BUCKET_QUERIES) -> list[dict]:
    """Does the floor depend on how many words a query has? Per length (1, 2, 3 words): the
    best cosine of gibberish of that many words (lowest, median), and for pseudo-queries of that
    many consecutive words of a sampled paper's title (stop words and non-words left out), the
    share whose own paper, when among the 100 nearest, clears the floor."""
    from papersift.search.query import ParsedQuery

    rng = random.Random(seed + 1)
    rows = []
    for words in BUCKET_WORDS:
        best = np.array([scores[0][1] for scores in (
            dense.nearest(" ".join(nonsense_word(rng) for _ in range(words)), ParsedQuery(), 1)
            for _ in range(per_bucket)) if scores])
        found = []
        for paper_id in sample[:per_bucket]:
            paper = papers.get(paper_id)
            tokens = [token for token in re.findall(r"[A-Za-z]+", paper.title.lower()) if token not in TITLE_STOP] \
                if paper is not None else []
            if len(tokens) < words:
                continue
            start = rng.randint(0, len(tokens) - words)
            score = dict(dense.nearest(" ".join(tokens[start:start + words]), ParsedQuery(), 100)).get(paper_id)
            if score is not None:
                found.append(score >= floor)
        rows.append({"words": words, "gibberish_floor": round(float(best.min()), 3),
                     "gibberish_median": round(float(np.median(best)), 3),
                     "pseudo_queries": len(found), "own_paper_above_floor": round(sum(found) / max(len(found), 1), 3)})
    return rows


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
    lines += ["", "By query length (gibberish of that many words; pseudo-queries: that many words of a sampled title):", "",
              "| model | words | gibberish floor | gibberish median | pseudo-queries | own paper above the floor |",
              "|---|---:|---:|---:|---:|---:|"]
    for row in report["models"]:
        for bucket in row.get("by_words", []):
            lines.append(f"| {row['model']} | {bucket['words']} | {bucket['gibberish_floor']:.3f} "
                         f"| {bucket['gibberish_median']:.3f} | {bucket['pseudo_queries']} "
                         f"| {bucket['own_paper_above_floor']:.1%} |")
    return "\n".join(lines) + "\n"
