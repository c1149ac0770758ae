"""Semantic benchmark: embedding throughput, and dense / hybrid query latency with query embedding.

Everything runs in one process on one data dir (lexical index + vector index):
- throughput: a fixed sample of the store's abstracts embedded from scratch (no cache);
- dense latency: query embedding + numpy search over the rows in memory, and query
  embedding + the faiss scan over the same rows (index/vectors.py; built here when the
  generation is below the scan size and has none), with the scan's recall@20 against numpy
  (1.0 but for ties and float16 rounding);
- hybrid and keyword latency: full SearchService.search pages (20 hits, facets, highlights),
  as the page and the API ask for them.
Queries: the 100 real Semantic Scholar CS queries plus the known-item dev queries (zh + en).
"""

from __future__ import annotations

import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import orjson

from papersift.config import shared_data_dir
from papersift.index import vectors as vector_store
from papersift.index.embeddings import Encoder, cpu_threads, paper_text
from papersift.models import DEFAULT_MODEL
from papersift.search.crosslingual import load_resources
from papersift.search.semantic import shared_encoder
from papersift.search.service import SearchService
from papersift.search.stages import timed
from papersift.search.types import Mode, SearchRequest
from papersift.store import Store

TOP_K = 20
PAGE_MODES: tuple[tuple[Mode, str], ...] = (("hybrid", "hybrid page"), ("keyword", "keyword page"))


def latency_summary(seconds: list[float]) -> dict[str, float]:
    values = np.asarray(seconds) * 1000
    return {"p50_ms": round(float(np.percentile(values, 50)), 2), "p95_ms": round(float(np.percentile(values, 95)), 2),
            "p99_ms": round(float(np.percentile(values, 99)), 2), "mean_ms": round(float(values.mean()), 2),
            "n": len(values)}


def bench_queries(shared: Path | None = None) -> list[tuple[str, str]]:
    """(query set, query): the S2 log queries, then the known-item queries by language."""
    shared = shared or shared_data_dir()
    s2_lines = (shared / "s2cs_queries" / "s2_query.jsonl").read_bytes().splitlines()
    queries = [("S2", orjson.loads(line)["query"]) for line in s2_lines]
    for line in (shared / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        queries.append((f"known-item {record['lang']}", record["query"]))
    return queries


@dataclass
class SemanticReport:
    data_dir: str
    model: str
    variant: str
    query_variant: str
    threads: int
    machine: str
    vectors: int
    coverage: float
    throughput: dict = field(default_factory=dict)
    latency: dict = field(default_factory=dict)
    scan: dict = field(default_factory=dict)
    # page -> stage -> mean ms a page (search/stages.py): where a hybrid page's time goes
    stage_ms: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def markdown(self) -> str:
        throughput = self.throughput
        lines = [(f"# papersift bench semantic — {self.model} (passages {self.variant}, queries {self.query_variant}), "
                 f"{self.threads} threads"),
                 "", f"data dir `{self.data_dir}`: {self.vectors:,} vectors ({self.coverage:.1%} of papers); {self.machine}",
                 "", "## Embedding throughput", "",
                 "| texts | seconds | abstracts/s | mean tokens |", "|---:|---:|---:|---:|",
                 f"| {throughput['texts']} | {throughput['seconds']} | {throughput['per_s']} | {throughput['mean_tokens']} |",
                 "", "## Query latency (ms, query embedding included where it applies)", "",
                 "| path | p50 | p95 | p99 | mean | n |", "|---|---:|---:|---:|---:|---:|"]
        for name, row in self.latency.items():
            lines.append(f"| {name} | {row['p50_ms']} | {row['p95_ms']} | {row['p99_ms']} | {row['mean_ms']} | {row['n']} |")
        for page, stages in self.stage_ms.items():
            lines += ["", f"{page} time split (mean ms a page): "
                      + ", ".join(f"{name} {value}" for name, value in sorted(stages.items(), key=lambda item: -item[1]))]
        lines += ["", (f"faiss scan: built in {self.scan.get('build_s')} s over {self.vectors:,} vectors; "
                       f"recall@{TOP_K} against numpy {self.scan.get('recall_at_k')}")]
        return "\n".join(lines) + "\n"


def measure_throughput(encoder: Encoder, data_dir: Path, texts_count: int) -> dict:
    store = Store(data_dir, readonly=True)
    try:
        papers = [paper for _, paper in store.iter_papers(0) if paper.has_abstract]
    finally:
        store.close()
    step = max(1, len(papers) // texts_count)
    texts = [paper_text(paper) for paper in papers[::step][:texts_count]]
    inputs = [encoder.passage_input(text) for text in texts]
    tokens = [len(encoding.ids) for encoding in encoder.tokenizer.encode_batch(inputs)]
    started = time.perf_counter()
    encoder.encode_inputs(inputs)
    seconds = time.perf_counter() - started
    return {"texts": len(texts), "seconds": round(seconds, 2), "per_s": round(len(texts) / seconds, 2),
            "mean_tokens": round(float(np.mean(tokens)), 1)}


def run(data_dir: str | Path, repeats: int = 3, texts_count: int = 256,
        log: Callable[[str], None] = lambda _: None) -> SemanticReport:
    data_dir = Path(data_dir)
    index = vector_store.VectorIndex.open(data_dir, DEFAULT_MODEL)
    if index is None:
        raise FileNotFoundError(f"no vector index in {data_dir}; run 'papersift embed --data-dir {data_dir}'")
    encoder = Encoder(DEFAULT_MODEL)
    query_encoder = shared_encoder(DEFAULT_MODEL)  # the one search uses
    service = SearchService(data_dir)
    report = SemanticReport(str(data_dir), encoder.name, encoder.variant, query_encoder.variant, cpu_threads(),
                            f"{platform.machine()} {platform.processor() or ''}".strip(), len(index), index.meta.coverage)
    log(f"throughput: embedding {texts_count} abstracts")
    report.throughput = measure_throughput(encoder, data_dir, texts_count)
    queries = bench_queries()
    with tempfile.TemporaryDirectory() as scratch:
        scan = index.scan  # the generation's own past the scan size
        if scan is None:
            started = time.perf_counter()
            path = Path(scratch) / vector_store.SCAN_FILE
            vector_store.build_scan(index.vectors, path, storage=index.meta.storage)
            report.scan["build_s"] = round(time.perf_counter() - started, 2)
            scan = vector_store.open_scan(path)
        timings: dict[str, list[float]] = {name: [] for name in
                                           ("query embedding", "dense numpy", "dense faiss scan",
                                            "hybrid page", "keyword page")}
        recalls = []
        split: dict[str, dict[str, float]] = {}
        for request in (SearchRequest(query=q, mode=m) for _, q in queries[:3] for m in ("hybrid", "keyword")):
            service.search(request)  # warm up: sessions, caches
        load_resources()  # jieba and CC-CEDICT, as a server loads them at start (not on a query)
        log(f"latency: {len(queries)} queries x {repeats}")
        for _ in range(repeats):
            for query_set, query in queries:
                started = time.perf_counter()
                vector = query_encoder.encode_query(query)
                embedded = time.perf_counter()
                numpy_rows, _ = index.search(vector, TOP_K, scan=False)
                timings["query embedding"].append(embedded - started)
                timings["dense numpy"].append(time.perf_counter() - started)
                started = time.perf_counter()
                vector = query_encoder.encode_query(query)
                scan_rows, _ = vector_store.scan_search(scan, vector, TOP_K)
                timings["dense faiss scan"].append(time.perf_counter() - started)
                recalls.append(len(set(scan_rows.tolist()) & set(numpy_rows.tolist())) / TOP_K)
                for mode, name in PAGE_MODES:
                    with timed() as seconds:
                        started = time.perf_counter()
                        service.search(SearchRequest(query=query, mode=mode, size=TOP_K))
                        timings[name].append(time.perf_counter() - started)
                    for stage, value in seconds.items():
                        split.setdefault(name, {})[stage] = split.get(name, {}).get(stage, 0.0) + value
                    if mode == "hybrid":  # Chinese queries also embed their words for the term bridge
                        timings.setdefault(f"hybrid page, {query_set} queries", []).append(time.perf_counter() - started)
        report.scan["recall_at_k"] = round(float(np.mean(recalls)), 4)
    report.latency = {name: latency_summary(values) for name, values in timings.items()}
    report.stage_ms = {name: {stage: round(value / len(timings[name]) * 1000, 3) for stage, value in stages.items()}
                       for name, stages in split.items()}
    return report
