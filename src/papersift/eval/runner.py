"""Run a benchmark: rank every query with SearchService.rank, score it per `lang` slice."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from papersift.eval.datasets import EvalQuery, read_corpus
from papersift.eval.metrics import RANK_DEPTH, mean_over, per_query
from papersift.index import lexical
from papersift.search.service import SearchService

CACHE_ENV = "PAPERSIFT_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class EvalResult:
    mode: str
    metrics: dict[str, dict[str, float]]  # slice ("all", "lang=zh", ...) -> metric -> mean
    queries: int
    like: str | None = None  # "text"/"paper": queries ranked as similar papers (SearchService.rank)

    def to_dict(self) -> dict:
        shown = {"mode": self.mode, "metrics": self.metrics, "queries": self.queries}
        return {**shown, "like": self.like} if self.like else shown


def default_cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / ("eval" if os.environ.get(CACHE_ENV) else "papersift/eval")


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def corpus_data_dir(corpus: str | Path, cache_dir: str | Path | None = None) -> Path:
    """A data dir holding an index of `corpus`, built once per corpus content and index schema."""
    corpus = Path(corpus)
    folder = Path(cache_dir or default_cache_dir()) / f"corpus-{file_digest(corpus)}-v{lexical.SCHEMA_VERSION}"
    if lexical.current_generation(folder) is None:
        lexical.build_from_papers(folder, enumerate(read_corpus(corpus), 1))
    return folder


def run_queries(service: SearchService, queries: list[EvalQuery], mode: str,
                pools: dict[str, list[str]] | None = None, depth: int = RANK_DEPTH,
                progress: Callable[[int], None] | None = None, like: str | None = None) -> dict[str, dict[str, float]]:
    """query id -> {paper id: score}; scores are rank-based so ties keep the engine's order."""
    run: dict[str, dict[str, float]] = {}
    for query in queries:
        pool = pools.get(query.id) if pools is not None else None
        if pools is not None and pool is None:
            run[query.id] = {}
        else:
            ranked = service.rank(query.text, depth + len(query.exclude_ids), candidate_ids=pool, mode=mode, like=like)
            kept = [paper_id for paper_id, _ in ranked if paper_id not in query.exclude_ids][:depth]
            run[query.id] = {paper_id: float(depth - rank) for rank, paper_id in enumerate(kept)}
        if progress:
            progress(1)
    return run


def evaluate(service: SearchService, queries: list[EvalQuery], qrels: dict[str, dict[str, int]], mode: str,
             pools: dict[str, list[str]] | None = None,
             progress: Callable[[int], None] | None = None, like: str | None = None) -> EvalResult:
    judged = [query for query in queries if query.id in qrels]
    run = run_queries(service, judged, mode, pools, progress=progress, like=like)
    values = per_query({query.id: qrels[query.id] for query in judged}, run)
    metrics = {"all": mean_over(values, [query.id for query in judged])}
    for lang in sorted({query.lang for query in judged if query.lang}):
        metrics[f"lang={lang}"] = mean_over(values, [query.id for query in judged if query.lang == lang])
    return EvalResult(mode, metrics, len(judged), like)


def markdown_table(result: EvalResult) -> str:
    names = list(next(iter(result.metrics.values())).keys()) if result.metrics else []
    lines = [f"| slice | {' | '.join(names)} |", f"|---|{'---:|' * len(names)}"]
    for slice_name, values in result.metrics.items():
        lines.append(f"| {slice_name} | {' | '.join(f'{values[name]:.4f}' for name in names)} |")
    ranked_as = {"text": " (query texts ranked as pasted text: similar papers)",
                 "paper": " (similar papers to the stored paper each query names)"}.get(result.like or "", "")
    return "\n".join(lines) + f"\n\nmode {result.mode}{ranked_as}, {result.queries} queries"
