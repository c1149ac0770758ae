"""Metrics via ir-measures (trec_eval's definitions through pytrec_eval).

Chosen over ranx: same numbers, but ranx's numba start-up costs ~8 s per process.
Every query in the qrels counts: a query with no results scores 0 (pytrec_eval alone
would silently leave it out of the mean).
"""

from __future__ import annotations

from collections.abc import Iterable

import ir_measures
from ir_measures import RR, R, nDCG

MEASURES = {"mrr@10": RR @ 10, "recall@10": R @ 10, "recall@100": R @ 100, "ndcg@10": nDCG @ 10, "ndcg@20": nDCG @ 20}
RANK_DEPTH = 100


def per_query(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """metric name -> query id -> value, for every query of the qrels."""
    names = {measure: name for name, measure in MEASURES.items()}
    values = {name: dict.fromkeys(qrels, 0.0) for name in MEASURES}
    judged_run = {query_id: docs for query_id, docs in run.items() if query_id in qrels and docs}
    for metric in ir_measures.iter_calc(list(MEASURES.values()), qrels, judged_run):
        values[names[metric.measure]][metric.query_id] = float(metric.value)
    return values


def mean_over(values: dict[str, dict[str, float]], query_ids: Iterable[str]) -> dict[str, float]:
    query_ids = list(query_ids)
    return {name: (sum(by_query[q] for q in query_ids) / len(query_ids) if query_ids else 0.0)
            for name, by_query in values.items()}
