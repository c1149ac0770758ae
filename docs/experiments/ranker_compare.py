"""Fusion against the learned ranker, paired over the same queries (issue 31; the experiment
docs/experiments/2026-12-01-learned-ranker.md).

    .venv/bin/python docs/experiments/ranker_compare.py D [--bench knownitem --bench zhterms ...] [--out F.json]

D must hold a model written by `papersift rank train --data-dir D` (active or not: this script
switches it on and off itself). Each benchmark's dev queries are ranked twice in hybrid mode by
SearchService.ranking (what `papersift eval` measures): once with the fusion alone, once with the
learned ranker re-ordering the fused head. Per query MRR@10 / nDCG@10 differences get a paired
bootstrap 95% interval (10,000 resamples of the queries, numpy). The time of the re-ranking
itself (features + model) is taken per query.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import orjson

from papersift.eval.datasets import load_qrels, load_queries
from papersift.eval.metrics import per_query
from papersift.eval.runner import run_queries
from papersift.search.hybrid import make_retriever
from papersift.search.ranker import LearnedRanker, model_paths
from papersift.search.service import SearchService

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
BENCHMARKS = {  # name -> (queries, qrels, metric)
    "knownitem": ("knownitem/queries_dev.jsonl", "knownitem/qrels_dev.tsv", "mrr@10"),
    "zhterms": ("zhterms/queries_dev.jsonl", "zhterms/qrels_dev.tsv", "mrr@10"),
    "scifact": ("scifact/queries_dev.jsonl", "scifact/qrels_dev.tsv", "ndcg@10"),
}


class TimedRanker(LearnedRanker):
    """The learned ranker, with the time of each re-ranking kept."""

    def __init__(self, data_dir: Path):
        super().__init__(data_dir)
        self.times: list[float] = []

    def active_for(self, backend):
        return self._current()[0]  # measured whether or not the model is marked active

    def rerank(self, signals, backend):
        started = time.perf_counter()
        ranked = super().rerank(signals, backend)
        self.times.append((time.perf_counter() - started) * 1000)
        return ranked


def bootstrap(differences: np.ndarray, rounds: int = 10_000, seed: int = 1) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = differences[rng.integers(0, len(differences), (rounds, len(differences)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def compare(data_dir: Path, name: str) -> dict:
    queries_file, qrels_file, metric = BENCHMARKS[name]
    queries = load_queries(SHARED / queries_file)
    qrels = load_qrels(SHARED / qrels_file)
    judged = [query for query in queries if query.id in qrels]
    service = SearchService(data_dir)
    retriever = make_retriever(data_dir, service)
    if retriever is None:
        raise SystemExit(f"no vectors in {data_dir}")
    service.register_retriever("hybrid", retriever)
    values = {}
    timed = TimedRanker(data_dir)
    for arm, ranker in (("fusion", None), ("learned", timed)):
        retriever.ranker = ranker
        run = run_queries(service, judged, "hybrid")
        values[arm] = per_query({query.id: qrels[query.id] for query in judged}, run)
    slices = {"all": [query.id for query in judged]}
    for lang in sorted({query.lang for query in judged if query.lang}):
        slices[f"lang={lang}"] = [query.id for query in judged if query.lang == lang]
    report: dict = {"benchmark": name, "metric": metric, "queries": len(judged), "slices": {}}
    for slice_name, ids in slices.items():
        fusion = np.array([values["fusion"][metric][qid] for qid in ids])
        learned = np.array([values["learned"][metric][qid] for qid in ids])
        low, high = bootstrap(learned - fusion)
        report["slices"][slice_name] = {"n": len(ids), "fusion": round(float(fusion.mean()), 4),
                                        "learned": round(float(learned.mean()), 4),
                                        "difference": round(float((learned - fusion).mean()), 4),
                                        "ci95": [round(low, 4), round(high, 4)],
                                        "better": int((learned > fusion).sum()), "worse": int((learned < fusion).sum())}
    times = np.array(timed.times) if timed.times else np.zeros(1)
    report["rerank_ms"] = {"p50": round(float(np.percentile(times, 50)), 2),
                           "p95": round(float(np.percentile(times, 95)), 2), "calls": len(timed.times)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--bench", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not model_paths(args.data_dir)[0].exists():
        raise SystemExit(f"no model in {args.data_dir}: papersift rank train --data-dir {args.data_dir}")
    reports = [compare(args.data_dir, name) for name in args.bench or ["knownitem", "zhterms"]]
    text = orjson.dumps(reports, option=orjson.OPT_INDENT_2).decode()
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
