"""Hybrid page split: where a hybrid (default mode) page's time goes, query by query.

The known-item dev queries (10-40 words, the issue #32 set) as result pages through
SearchService.search, in one process after a server's warm-up (api/warmup.py): pass "fresh" asks each query once
with no query vector remembered, pass "remembered" asks them again (the memo answers the
encoding). Each page is timed by stage (search/stages.py: query, encode, engine, dense,
fusion, rows, highlights, facets, reading, ...), in wall time and in the process's CPU time
(which other jobs on a shared machine barely move). The report names the stage a
regression lands in: p50 / p95 / mean of each stage per language and pass.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import orjson

from papersift.api.warmup import Warmup
from papersift.config import cpu_threads, shared_data_dir
from papersift.models import DEFAULT_MODEL, ModelError, query_variant
from papersift.search.service import SearchService
from papersift.search.stages import timed
from papersift.search.types import SearchRequest

PAGE_SIZE = 20
PASSES = ("fresh", "remembered")
WARM_UP = "warm up the encoder on graph networks"


def known_item_queries(lang: str, shared: Path | None = None) -> list[str]:
    """The known-item dev queries of one language, in file order."""
    lines = ((shared or shared_data_dir()) / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines()
    return [record["text"] for record in map(orjson.loads, lines) if record["lang"] == lang]


def summary(values_ms: Sequence[float]) -> dict[str, float]:
    values = np.asarray(values_ms, dtype=np.float64)
    if not len(values):
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2),
            "mean": round(float(values.mean()), 2)}


def time_pages(service: SearchService, queries: Sequence[str]) -> list[dict]:
    """One hybrid page per query: wall ms, CPU ms and ms per stage."""
    pages = []
    for query in queries:
        with timed() as seconds:
            started, cpu_started = time.perf_counter(), time.process_time()
            response = service.search(SearchRequest(query=query, mode="hybrid", size=PAGE_SIZE))
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        pages.append({"query": query, "wall_ms": round(wall * 1000, 2), "cpu_ms": round(cpu * 1000, 2),
                      "hits": len(response.hits),
                      "stages_ms": {name: round(value * 1000, 3) for name, value in seconds.items()}})
    return pages


def summarize(pages: Sequence[dict]) -> dict:
    stages = sorted({name for page in pages for name in page["stages_ms"]})
    return {"pages": len(pages), "wall_ms": summary([page["wall_ms"] for page in pages]),
            "cpu_ms": summary([page["cpu_ms"] for page in pages]),
            "stages_ms": {name: summary([page["stages_ms"].get(name, 0.0) for page in pages]) for name in stages}}


def query_encoder_name() -> str:
    """e5 and the file its queries run (models/built.py query_variant), or that it is not built."""
    try:
        return f"{DEFAULT_MODEL} {query_variant(DEFAULT_MODEL)}"
    except ModelError:
        return f"{DEFAULT_MODEL} not built"


def run(data_dir: str | Path, langs: Sequence[str] = ("en", "zh"),
        log: Callable[[str], None] = lambda _: None) -> dict:
    service = SearchService(data_dir)
    # what `serve` loads before it says ready (api/warmup.py): jieba, CC-CEDICT, the glossary, the
    # phrase vectors and the term lexicon's phrase keys, without which each of a Chinese reading's
    # phrase checks is a SQLite query (its split then showed reading.lexicon ~6x a server's)
    Warmup().run(service, Path(data_dir))
    service.search(SearchRequest(query=WARM_UP, mode="hybrid", size=PAGE_SIZE))
    report: dict = {"data_dir": str(data_dir), "threads": cpu_threads(),
                    "query_encoder": query_encoder_name(),
                    "load_before": round(os.getloadavg()[0], 2), "runs": {}}
    for lang in langs:
        queries = known_item_queries(lang)
        for label in PASSES:
            log(f"{lang} {label}: {len(queries)} pages")
            pages = time_pages(service, queries)
            report["runs"][f"{lang} {label}"] = {**summarize(pages), "load": round(os.getloadavg()[0], 2),
                                                 "per_query": pages}
    return report


def markdown(report: dict) -> str:
    lines = ["# papersift bench hybrid — known-item dev hybrid pages, split by stage", "",
             (f"data dir `{report['data_dir']}`, query encoder {report['query_encoder']}, {report['threads']} threads; "
              f"load average before {report['load_before']}"), "",
             "| run | pages | wall p50 | wall p95 | wall mean | CPU mean | load |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, run_ in report["runs"].items():
        wall, cpu = run_["wall_ms"], run_["cpu_ms"]
        lines.append(f"| {name} | {run_['pages']} | {wall['p50']} | {wall['p95']} | {wall['mean']} | {cpu['mean']} | "
                     f"{run_['load']} |")
    for name, run_ in report["runs"].items():
        lines += ["", f"## {name}: ms per stage (p50 / p95 / mean)", "", "| stage | p50 | p95 | mean |",
                  "|---|---:|---:|---:|"]
        for stage, row in sorted(run_["stages_ms"].items(), key=lambda item: -item[1]["mean"]):
            lines.append(f"| {stage} | {row['p50']} | {row['p95']} | {row['mean']} |")
    return "\n".join(lines) + "\n"
