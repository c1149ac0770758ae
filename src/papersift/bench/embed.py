"""Embedding benchmark (issue 20): throughput per model and setting, time to a first pass over
every paper, and ranking quality per stage (keyword, static-only, e5) on the dev benchmarks.

- throughput: a fixed sample of the store's papers embedded from scratch (no cache) with the
  static model and with e5 fp32 / int8 at the given thread count; with `speed_texts`, also the
  sweep of bench/embed_speed.py (every model x setting, interleaved repeats, load beside each);
- first pass: the static model's vectors for every paper of the data dir, written into an empty
  data dir (so nothing is cached: what a new user waits for after `papersift index`), then
  into the data dir itself from that cache; the static model's own build time comes from its
  manifest (`papersift models build` distils it once per machine);
- quality: `papersift eval`'s code path (eval.runner.evaluate) with the retriever each stage
  searches with registered on the service: keyword; semantic and hybrid with static vectors
  only; semantic and hybrid with e5 where e5 vectors exist (the data dir's; an evaluation
  corpus has none unless `papersift embed --corpus` made them).
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from papersift.bench import embed_speed
from papersift.eval.datasets import load_pools, load_qrels, load_queries, read_corpus
from papersift.eval.runner import corpus_data_dir, evaluate
from papersift.index import vectors as vector_store
from papersift.index.embeddings import embed_papers, make_encoder, paper_text
from papersift.models import DEFAULT_MODEL, STATIC_MODEL, get_spec, is_built, load_built
from papersift.search.hybrid import ENGLISH_MODEL, HybridRetriever
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.search.types import Mode
from papersift.store import Store

# (benchmark, metric, queries, query field, qrels, corpus or None for the data dir, pools). CSFCube's
# query is its facet sentences (docs/semantic.md): its `text` adds the title, which makes 15 of
# its 28 dev queries longer than the API accepts.
BENCHMARKS = (
    ("known-item", "mrr@10", "knownitem/queries_dev.jsonl", "text", "knownitem/qrels_dev.tsv", None, None),
    ("SciFact", "ndcg@10", "scifact/queries_dev.jsonl", "text", "scifact/qrels_dev.tsv", "scifact/corpus.jsonl.gz", None),
    ("CSFCube", "ndcg@20", "csfcube/queries_dev.jsonl", "facet_sentences", "csfcube/qrels_dev.tsv",
     "csfcube/corpus.jsonl.gz", "csfcube/pools_dev.json"),
)


def throughput(papers: list, threads: int, texts: int, log: Callable[[str], None]) -> list[dict]:
    """Passages per second of each model and setting over the same sample (nothing cached)."""
    sample = [paper_text(paper) for paper in papers[:texts]]
    rows = []
    settings = [(STATIC_MODEL, "static", len(papers))] + [(DEFAULT_MODEL, variant, len(sample)) for variant in ("fp32", "int8")]
    for model, variant, count in settings:
        encoder = make_encoder(model, variant=variant, threads=threads)
        inputs = [paper_text(paper) for paper in papers[:count]] if model == STATIC_MODEL else sample
        started = time.perf_counter()
        encoder.encode_passages(inputs)
        seconds = time.perf_counter() - started
        rows.append({"model": model, "variant": variant, "threads": threads, "passages": len(inputs),
                     "seconds": round(seconds, 2), "passages_per_s": round(len(inputs) / seconds, 1)})
        log(f"{model} {variant}: {rows[-1]['passages_per_s']} passages/s")
    return rows


def first_pass(data_dir: Path, papers: list, last_seq: int, threads: int) -> dict:
    """Seconds from nothing to a static vector for every paper (model load included), and the
    static model's build time."""
    started = time.perf_counter()
    encoder = make_encoder(STATIC_MODEL, threads=threads)
    loaded = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="papersift-first-pass-") as scratch:
        summary = embed_papers(scratch, papers, encoder, last_seq)
        total = time.perf_counter() - started
        embed_papers(data_dir, papers, encoder, last_seq, seed_dirs=[scratch])
    manifest = json.loads((load_built(STATIC_MODEL).folder / "manifest.json").read_text())
    return {"papers": len(papers), "covered": summary.covered, "model_load_s": round(loaded, 2),
            "embed_and_publish_s": round(summary.seconds, 2), "total_s": round(total, 2),
            "static_build_s": manifest.get("distill_seconds"), "static_tokens": manifest.get("tokens_distilled")}


def stage_retrievers(directory: Path, service: SearchService, stage: str) -> dict | None:
    """The semantic and hybrid retrievers a stage searches with; None when its vectors are missing."""
    if stage == "static":
        if vector_store.current_generation(directory, STATIC_MODEL) is None:
            return None
        dense = DenseRetriever(directory, service, model=STATIC_MODEL)
        return {"semantic": dense, "hybrid": HybridRetriever(dense, service)}
    if vector_store.current_generation(directory, DEFAULT_MODEL) is None:
        return None
    dense = DenseRetriever(directory, service)
    english = DenseRetriever(directory, service, model=ENGLISH_MODEL) if is_built(get_spec(ENGLISH_MODEL)) else None
    return {"semantic": dense, "hybrid": HybridRetriever(dense, service, english=english)}


def quality(data_dir: Path, shared: Path, cache_dir: Path | None, threads: int, log: Callable[[str], None]) -> list[dict]:
    """One row per benchmark, query language and stage/mode: the benchmark's metric."""
    rows = []
    for name, metric, queries_file, query_field, qrels_file, corpus, pools_file in BENCHMARKS:
        directory = data_dir if corpus is None else corpus_data_dir(shared / corpus, cache_dir)
        if corpus is not None:  # the corpus's static vectors: seconds
            embed_papers(directory, list(read_corpus(shared / corpus)), make_encoder(STATIC_MODEL, threads=threads))
        queries = load_queries(shared / queries_file, query_field)
        qrels = load_qrels(shared / qrels_file)
        pools = load_pools(shared / pools_file) if pools_file else None
        stages: list[tuple[str, Mode]] = [("keyword", "keyword")]
        stages += [(stage, mode) for stage in ("static", "e5") for mode in ("semantic", "hybrid")]
        for stage, mode in stages:
            service = SearchService(directory)
            retrievers = {} if stage == "keyword" else stage_retrievers(directory, service, stage)
            if retrievers is None:
                continue
            for registered_mode, retriever in retrievers.items():
                service.register_retriever(registered_mode, retriever)
            started = time.perf_counter()
            result = evaluate(service, queries, qrels, mode, pools)
            for slice_name, values in result.metrics.items():
                rows.append({"benchmark": name, "slice": slice_name, "stage": stage, "mode": mode, "metric": metric,
                             "value": round(values[metric], 4), "queries": result.queries,
                             "seconds": round(time.perf_counter() - started, 1)})
            log(f"{name} {stage} {mode}: {metric} {result.metrics['all'][metric]:.4f}")
    return rows


def run(data_dir: Path, shared: Path, threads: int = 1, texts: int = 64, cache_dir: Path | None = None,
        with_quality: bool = True, log: Callable[[str], None] = print, speed_texts: int = 0,
        repeats: int = 2) -> dict:
    store = Store(data_dir, readonly=True)
    try:
        seq_papers = list(store.iter_papers(0))
    finally:
        store.close()
    papers = [paper for _, paper in seq_papers]
    last_seq = max((seq for seq, _ in seq_papers), default=0)
    report = {"data_dir": str(data_dir), "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
              "threads": threads, "papers": len(papers)}
    report["first_pass"] = first_pass(data_dir, papers, last_seq, threads)
    log(f"first pass: {report['first_pass']}")
    report["throughput"] = throughput(papers, threads, texts, log)
    if speed_texts:
        report["speed"] = embed_speed.sweep(papers, speed_texts, repeats, log=log)
    report["quality"] = quality(data_dir, shared, cache_dir, threads, log) if with_quality else []
    return report


def markdown(report: dict) -> str:
    first = report["first_pass"]
    lines = [f"# bench embed: {report['papers']:,} papers, {report['threads']} thread(s)", "",
             (f"First pass (static vectors for every paper, from an empty cache): **{first['total_s']} s** "
              f"(model load {first['model_load_s']} s, embed + publish {first['embed_and_publish_s']} s; "
              f"{first['covered']:,} of {first['papers']:,} papers). The static model's one-time build: "
              f"{first['static_build_s']} s for {first['static_tokens']:,} tokens."), "",
             "| model | setting | passages | passages/s |", "|---|---|---:|---:|"]
    lines += [f"| {row['model']} | {row['variant']}, {row['threads']} thread(s) | {row['passages']:,} | {row['passages_per_s']:,} |"
              for row in report["throughput"]]
    if report.get("speed"):
        lines += ["", *embed_speed.markdown(report["speed"])]
    if report["quality"]:
        lines += ["", "| benchmark | slice | metric | keyword | static semantic | static hybrid | e5 semantic | e5 hybrid |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        keys = dict.fromkeys((row["benchmark"], row["slice"], row["metric"]) for row in report["quality"])
        values = {(row["benchmark"], row["slice"], row["stage"], row["mode"]): row["value"] for row in report["quality"]}
        for benchmark, slice_name, metric in keys:
            cells = [values.get((benchmark, slice_name, stage, mode)) for stage, mode in
                     (("keyword", "keyword"), ("static", "semantic"), ("static", "hybrid"), ("e5", "semantic"), ("e5", "hybrid"))]
            lines.append(f"| {benchmark} | {slice_name} | {metric} | " + " | ".join("—" if v is None else f"{v:.4f}" for v in cells) + " |")
    return "\n".join(lines)
