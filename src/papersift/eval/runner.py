"""Run a benchmark: rank every query as /api/search does, score it per `lang` slice.

Each query becomes the SearchRequest the API builds from `q` and `mode` (search.types
typed_request) and is ranked by SearchService.ranking, the path search() pages through:
the same parsing, Chinese carry-over, relaxed fallback and fusion as users get. A query the
API would refuse (a syntax error, or longer than MAX_QUERY_CHARS) ranks nothing and is counted.
"""

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
from papersift.search.types import Mode, QuerySyntaxError, SearchRequest, typed_request

CACHE_ENV = "PAPERSIFT_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class EvalResult:
    mode: str
    metrics: dict[str, dict[str, float]]  # slice ("all", "lang=zh", ...) -> metric -> mean
    queries: int
    like: str | None = None  # "text"/"paper": queries ranked as similar papers
    refused: int = 0  # queries the API would refuse (syntax error, too long): ranked nothing

    def to_dict(self) -> dict:
        shown = {"mode": self.mode, "metrics": self.metrics, "queries": self.queries}
        if self.refused:
            shown["refused"] = self.refused
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


def eval_request(query: EvalQuery, mode: Mode, like: str | None = None) -> SearchRequest:
    """The request a person (or the page) makes for this query: typed into the search box,
    or "similar papers" to a stored paper, or to pasted text."""
    if like == "paper":
        return SearchRequest(like_id=query.text, mode=mode, with_facets=False)
    if like == "text":
        return SearchRequest(like_text=query.text, mode=mode, with_facets=False)
    if like is not None:
        raise ValueError(f"like must be 'text' or 'paper', not {like!r}")
    return typed_request(query.text, mode, with_facets=False)


def rank_query(service: SearchService, query: EvalQuery, mode: Mode, k: int,
               pool: list[str] | None = None, like: str | None = None) -> list[str] | None:
    """The first k paper ids the API lists for the query; None when the API refuses it."""
    if like is not None and mode == "keyword":
        raise ValueError("ranking similar papers needs the semantic or hybrid mode")
    try:
        ranked = service.ranking(eval_request(query, mode, like), k, candidate_ids=pool)
    except QuerySyntaxError:
        return None
    return [paper_id for paper_id, _ in ranked]


def run_queries(service: SearchService, queries: list[EvalQuery], mode: Mode,
                pools: dict[str, list[str]] | None = None, depth: int = RANK_DEPTH,
                progress: Callable[[int], None] | None = None, like: str | None = None,
                refused: list[str] | None = None) -> dict[str, dict[str, float]]:
    """query id -> {paper id: score}; scores are rank-based so ties keep the engine's order.
    Ids of queries the API would refuse are appended to `refused`."""
    run: dict[str, dict[str, float]] = {}
    for query in queries:
        pool = pools.get(query.id) if pools is not None else None
        if pools is not None and pool is None:
            run[query.id] = {}
        else:
            ranked = rank_query(service, query, mode, depth + len(query.exclude_ids), pool, like)
            if ranked is None:
                ranked = []
                if refused is not None:
                    refused.append(query.id)
            kept = [paper_id for paper_id in ranked if paper_id not in query.exclude_ids][:depth]
            run[query.id] = {paper_id: float(depth - rank) for rank, paper_id in enumerate(kept)}
        if progress:
            progress(1)
    return run


def evaluate(service: SearchService, queries: list[EvalQuery], qrels: dict[str, dict[str, int]], mode: Mode,
             pools: dict[str, list[str]] | None = None,
             progress: Callable[[int], None] | None = None, like: str | None = None) -> EvalResult:
    judged = [query for query in queries if query.id in qrels]
    refused: list[str] = []
    run = run_queries(service, judged, mode, pools, progress=progress, like=like, refused=refused)
    values = per_query({query.id: qrels[query.id] for query in judged}, run)
    metrics = {"all": mean_over(values, [query.id for query in judged])}
    for lang in sorted({query.lang for query in judged if query.lang}):
        metrics[f"lang={lang}"] = mean_over(values, [query.id for query in judged if query.lang == lang])
    return EvalResult(mode, metrics, len(judged), like, len(refused))


def markdown_table(result: EvalResult) -> str:
    names = list(next(iter(result.metrics.values())).keys()) if result.metrics else []
    lines = [f"| slice | {' | '.join(names)} |", f"|---|{'---:|' * len(names)}"]
    for slice_name, values in result.metrics.items():
        lines.append(f"| {slice_name} | {' | '.join(f'{values[name]:.4f}' for name in names)} |")
    ranked_as = {"text": " (query texts ranked as pasted text: similar papers)",
                 "paper": " (similar papers to the stored paper each query names)"}.get(result.like or "", "")
    refused = f" ({result.refused} refused as the API would: syntax error or too long)" if result.refused else ""
    return "\n".join(lines) + f"\n\nmode {result.mode}{ranked_as}, {result.queries} queries{refused}"
