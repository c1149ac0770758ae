"""papersift bench ...: benchmarks are commands that write reports (JSON + markdown)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.markup import escape

from papersift import models as model_registry
from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    data_dir_of,
    emit_report,
    err_console,
    fail,
    require_writable,
)
from papersift.config import shared_data_dir

bench_app = typer.Typer(help="Benchmarks that write reports (JSON + markdown) to a reports dir.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

ReportsDirOption = Annotated[Path, typer.Option("--reports-dir", help="Where reports are written.")]


@bench_app.command("lexical")
def bench_lexical(
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Papers JSONL[.gz] (default: the shared ml_papers corpus).")] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed passes over the queries.")] = 3,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Keyword search vs bm25s on the same corpus and queries: build time, size, latency, QPS, RSS."""
    from papersift.bench.lexical import run

    if corpus is not None and not corpus.is_file():
        fail(f"--corpus: no such file: {corpus}")
    report = run(corpus, repeats, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    emit_report("bench-lexical", report.to_dict(), report.markdown(), reports_dir, as_json)


@bench_app.command("synthesize")
def bench_synthesize(
    papers: Annotated[int, typer.Option("--papers", min=1, help="How many papers to write.")],
    out: Annotated[Path, typer.Option("--out", help="Output JSONL (gzipped when it ends in .gz).")],
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same source: same bytes.")] = 0,
    source: Annotated[list[Path] | None, typer.Option(
        "--source", help="Corpus JSONL[.gz] to draw from (repeatable; default: the shared ml_papers files).")] = None,
    beta: Annotated[float, typer.Option(
        "--beta", min=0.1, max=0.9, help="Heaps exponent of the vocabulary growth past the source.")] = 0.55,
    as_json: JsonOption = False,
) -> None:
    """A synthetic corpus for scale tests: real sentences, titles, names and venue-years recombined,
    with a vocabulary that keeps growing (Heaps' law); prints the fitted Heaps exponent of the output."""
    from papersift.bench.synthetic import write_corpus

    sources = source or [shared_data_dir() / "ml_papers" / name for name in ("papers.jsonl.gz", "papers_title_only.jsonl.gz")]
    for path in sources:
        if not path.is_file():
            fail(f"--source: no such file: {path}")
    if not out.parent.is_dir():
        fail(f"--out: no such directory: {out.parent}")
    try:
        summary = write_corpus(sources, out, papers, seed=seed, beta=beta,
                               on_progress=lambda done: err_console.print(f"[dim]{done:,} papers[/]"))
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if as_json:
        print(orjson.dumps(summary).decode())
    else:
        err_console.print(f"{summary['papers']:,} papers -> {out} ({summary['bytes']:,} bytes); "
                          f"{summary['distinct_terms']:,} distinct terms over {summary['tokens']:,} tokens, "
                          f"Heaps beta {summary['heaps_beta']} (source {summary['source_heaps_beta']})", highlight=False)


@bench_app.command("write-load")
def bench_write_load(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="An indexed data dir; the drill works on a copy of it.")],
    readers: Annotated[int, typer.Option("--readers", min=0, help="Clients sending page / search / facet / export requests.")] = 20,
    writers: Annotated[int, typer.Option("--writers", min=0, help="Clients POSTing new papers.")] = 5,
    batch: Annotated[int, typer.Option("--batch", min=1, max=1000, help="Papers per POST.")] = 20,
    seconds: Annotated[float, typer.Option("--seconds", min=1, max=600, help="How long readers and writers run.")] = 60.0,
    mode: Annotated[str, typer.Option("--mode", help="Search mode of the readers.")] = "keyword",
    no_index: Annotated[bool, typer.Option("--no-index", help="Do not run `papersift index` beside the writers.")] = False,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Readers, writers and `papersift index` at once against a served copy of a data dir:
    errors and latency per request kind, server RSS, and whether every posted paper is searchable."""
    from papersift.bench.web import default_queries
    from papersift.bench.write_load import markdown, run_drill
    from papersift.store import Store

    if not (data_dir / "papers.sqlite3").is_file():
        fail(f"--data-dir: no papersift store in {data_dir}")
    store = Store(data_dir, readonly=True)
    templates = [paper.to_dict() for _, (_, paper) in zip(range(500), store.iter_papers())]
    report = run_drill(data_dir, default_queries(), templates, readers=readers, writers=writers, batch=batch,
                       seconds=seconds, mode=mode, with_index=not no_index)
    emit_report("bench-write-load", report, markdown(report), reports_dir, as_json)
    if report["errors"] or report["searchable"] != report["posted"] or report["index_failures"]:
        fail(f"{report['errors']} errors; {report['posted'] - report['searchable']} posted papers not searchable; "
             f"{len(report['index_failures'])} index runs failed")


@bench_app.command("costs")
def bench_costs(
    data_dir: DataDirOption = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Batches per request kind and concurrency.")] = 3,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """The worst request: a 1,000-character Chinese query in hybrid mode (facets, search, the
    filtered page), one and five at once (the data dir needs vectors for hybrid)."""
    from papersift.bench.costs import markdown_report, run_costs_bench

    resolved = data_dir_of(data_dir)
    if not (resolved / "papers.sqlite3").exists():
        fail(f"no papersift store in {resolved}")
    report = run_costs_bench(resolved, rounds)
    emit_report("bench-costs", report, markdown_report(report), reports_dir, as_json)


@bench_app.command("zhterms")
def bench_zhterms(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Data dir holding the ml_papers corpus.")],
    mode: Annotated[list[str], typer.Option("--mode", help="Modes to measure (repeatable).")] = ["keyword"],  # noqa: B006
    dataset: Annotated[Path | None, typer.Option("--dataset", help="zhterms folder (queries_dev.jsonl, qrels_dev.tsv).")] = None,
    half: Annotated[str, typer.Option("--half", help="all, A (develop) or B (confirm).")] = "all",
    ceiling: Annotated[bool, typer.Option(
        "--ceiling", help="Instead: the upper bound of any reading rule over the candidate readings "
                          "(twin among them; oracle MRR@10), to bench-zhterms-ceiling.*.")] = False,
    traditional: Annotated[bool, typer.Option(
        "--traditional", help="Write the Chinese queries in traditional characters first (OpenCC s2t).")] = False,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Chinese ML terms against their English twins through SearchService.search (the /api/search
    path): zh/en MRR@10 and Recall@10 per mode, with the ratios."""
    from papersift.bench import zhterms
    from papersift.search.types import Mode, is_mode

    dataset = dataset or zhterms.DEFAULT_DATASET
    if not (dataset / "queries_dev.jsonl").is_file():
        fail(f"--dataset: no queries_dev.jsonl in {dataset}")
    if half not in ("all", "A", "B"):
        fail(f"--half must be all, A or B, not {half!r}")
    modes: list[Mode] = []
    for name in mode:
        if not is_mode(name):
            fail(f"--mode must be keyword, semantic or hybrid, not {name!r}")
        modes.append(name)
    if ceiling:
        try:
            bound = zhterms.ceiling(data_dir, dataset, log=lambda message: err_console.print(f"[dim]{message}[/]"))
        except ValueError as exc:
            fail(str(exc))
        emit_report("bench-zhterms-ceiling", bound, zhterms.ceiling_markdown(bound), reports_dir, as_json)
        return
    report = zhterms.run(data_dir, modes, dataset, half, log=lambda message: err_console.print(f"[dim]{message}[/]"),
                         traditional=traditional)
    emit_report("bench-zhterms", report, zhterms.markdown(report), reports_dir, as_json)


@bench_app.command("zhpages")
def bench_zhpages(
    data_dir: DataDirOption = None,
    mode: Annotated[list[str], typer.Option("--mode", help="Modes to measure (repeatable).")] = ["keyword", "hybrid"],  # noqa: B006
    target: Annotated[list[str], typer.Option("--target", help="page (/) or api (/api/search) (repeatable).")] = ["page", "api"],  # noqa: B006
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="The first N terms of each language only.")] = None,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Chinese zhterms dev-term pages against their English twins on the server: each term asked
    once of a fresh `papersift serve` per language and target; server-side p50/p95/p99 and zh/en."""
    from papersift.bench import zhpages
    from papersift.search.types import is_mode

    for name in mode:
        if not is_mode(name):
            fail(f"--mode must be keyword, semantic or hybrid, not {name!r}")
    for name in target:
        if name not in zhpages.TARGETS:
            fail(f"--target must be page or api, not {name!r}")
    directory = data_dir_of(data_dir)
    try:
        report = zhpages.run(directory, mode, target, limit, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    except (FileNotFoundError, RuntimeError) as exc:
        fail(str(exc))
    emit_report("bench-zhpages", report, zhpages.markdown(report), reports_dir, as_json)


@bench_app.command("nav")
def bench_nav(
    data_dir: DataDirOption = None,
    mode: Annotated[list[str], typer.Option("--mode", help="Modes to measure (repeatable).")] = [  # noqa: B006
        "keyword", "hybrid", "semantic"],
    seed: Annotated[int, typer.Option("--seed", help="Seed of the query set drawn from the store.")] = 20261201,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Navigational queries drawn from the store (titles as typed and lower-cased, author names,
    pasted ids and URLs, unknown ids) through SearchService.search (the /api/search path): title
    MRR@10, author P@10, id hit@1 per mode."""
    from papersift.bench import nav
    from papersift.search.types import Mode, is_mode

    modes: list[Mode] = []
    for name in mode:
        if not is_mode(name):
            fail(f"--mode must be keyword, semantic or hybrid, not {name!r}")
        modes.append(name)
    report = nav.run(data_dir_of(data_dir), modes, seed, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    emit_report("bench-nav", report, nav.markdown(report), reports_dir, as_json)


@bench_app.command("hybrid")
def bench_hybrid(
    data_dir: DataDirOption = None,
    lang: Annotated[list[str], typer.Option("--lang", help="Known-item query languages (repeatable).")] = ["en", "zh"],  # noqa: B006
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Hybrid pages of the known-item dev queries split by stage (encode, engine, dense, fusion, rows,
    highlights, facets, ...), wall and CPU time, first asked and asked again."""
    from papersift.bench import hybrid

    for name in lang:
        if name not in ("en", "zh"):
            fail(f"--lang must be en or zh, not {name!r}")
    report = hybrid.run(data_dir_of(data_dir), lang, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    emit_report("bench-hybrid", report, hybrid.markdown(report), reports_dir, as_json)


@bench_app.command("floor")
def bench_floor(
    data_dir: DataDirOption = None,
    model: Annotated[list[str], typer.Option("--model", help="Models to calibrate (repeatable).")] = [  # noqa: B006
        "multilingual-e5-small", "multilingual-e5-small-static"],
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Each model's relevance floor on this data dir's vectors: the lowest best cosine of random
    letter strings (what search/semantic.py RELEVANCE_FLOORS holds), with its spread, the share
    of sampled titles that find their paper above it, and the same per query length (1-3 words)."""
    from papersift.bench import floor

    try:
        report = floor.run(data_dir_of(data_dir), model)
    except ValueError as problem:
        fail(str(problem))
    emit_report("bench-floor", report, floor.markdown(report), reports_dir, as_json)


@bench_app.command("people")
def bench_people(
    data_dir: DataDirOption = None,
    manifest: Annotated[Path | None, typer.Option(
        "--manifest", help="Corpus manifest.json to check venue counts against (default: the shared one).")] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed passes over the pages.")] = 3,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Author and venue pages: p50/p99 latency, venue counts vs the manifest, acceptance rates."""
    from papersift.bench.people import markdown, run
    from papersift.config import shared_data_dir

    directory = data_dir_of(data_dir)
    if manifest is None:
        default = shared_data_dir() / "ml_papers" / "manifest.json"
        manifest = default if default.is_file() else None
    elif not manifest.is_file():
        fail(f"--manifest: no such file: {manifest}")
    try:
        report = run(directory, manifest, repeats, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    emit_report("bench-people", report, markdown(report), reports_dir, as_json)


@bench_app.command("recommend")
def bench_recommend(
    data_dir: DataDirOption = None,
    draws: Annotated[int, typer.Option("--draws", min=1, max=20, help="Random draws per subarea and k.")] = 3,
    csfcube: Annotated[Path | None, typer.Option("--csfcube", help="Also the similar-paper users: the shared data's "
                                                 "csfcube/ folder (its corpus embedded by 'papersift embed --corpus').")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="With --csfcube: where eval corpora are kept.")] = None,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Recommendations for simulated topic users (tags from the labelled ICLR 2024 subareas, k = 1,
    5, 20): precision@20 and nDCG@20 of papersift, tfidf_svm (arxiv-sanity) and knn; with --csfcube,
    similar-paper users (CSFCube dev queries as one-paper tags, their pools ranked); the p50
    latency for a 50-paper tag. Reads the data dir only (a missing tf-idf file is computed in memory)."""
    from papersift.bench.recommend import markdown, run
    from papersift.extras import require
    from papersift.library.features import FeaturesMissing

    require("recommend", "bench recommend")
    directory = data_dir_of(data_dir)
    if not (directory / "papers.sqlite3").is_file():
        fail(f"no papersift store in {directory}")
    try:
        report = run(directory, draws, log=lambda message: err_console.print(f"[dim]{message}[/]"), csfcube=csfcube,
                     csfcube_cache=cache_dir)
    except (FeaturesMissing, ValueError) as problem:
        fail(str(problem))
    emit_report("bench-recommend", report, markdown(report), reports_dir, as_json)


@bench_app.command("load")
def bench_load(
    url: Annotated[list[str], typer.Option("--url", help="LABEL=URL of a running 'papersift serve' (repeatable).")],
    clients: Annotated[int, typer.Option("--clients", min=1, max=200, help="Concurrent clients.")] = 50,
    seconds: Annotated[float, typer.Option("--seconds", min=1, max=600, help="Duration per server.")] = 60,
    mode: Annotated[str, typer.Option("--mode", help="keyword, semantic or hybrid.")] = "keyword",
    queries: Annotated[Path | None, typer.Option("--queries", help="JSONL with a 'query' key (default: s2cs).")] = None,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """N concurrent clients for T seconds against each server (loopback only): errors, QPS, p50/p99."""
    from papersift.bench.load import markdown_table, run_load

    path = queries or shared_data_dir() / "s2cs_queries" / "s2_query.jsonl"
    texts = [orjson.loads(line)["query"] for line in path.read_text().splitlines() if line.strip()]
    results = []
    for target in url:
        label, _, address = target.rpartition("=")
        try:
            results.append(run_load(address, texts, clients, seconds, mode, label or address))
        except ValueError as exc:
            fail(str(exc))
    emit_report("bench-load", [asdict(result) for result in results], markdown_table(results), reports_dir, as_json)


@bench_app.command("typesense")
def bench_typesense(
    data_dir: DataDirOption = None,
    nodes: Annotated[int, typer.Option("--nodes", min=1, max=5, help="Cluster size (on 127.0.0.1).")] = 3,
    drill: Annotated[bool, typer.Option("--drill/--no-drill", help="Run the failover drill too.")] = True,
    reports_dir: ReportsDirOption = Path("reports"),
) -> None:
    """A scratch loopback cluster: import rate, RAM per paper (text, vectors), parity with the
    embedded backend over the shared queries, failover drill. Needs the keyword index built."""
    from papersift.bench.typesense import markdown_report, run_typesense_bench

    directory = data_dir_of(data_dir)
    path = shared_data_dir() / "s2cs_queries" / "s2_query.jsonl"
    texts = [orjson.loads(line)["query"] for line in path.read_text().splitlines() if line.strip()]
    report = run_typesense_bench(directory, texts, nodes, drill=drill)
    emit_report("bench-typesense", report, markdown_report(report), reports_dir, as_json=False)


@bench_app.command("semantic")
def bench_semantic(
    data_dir: DataDirOption = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed passes over the queries.")] = 2,
    texts: Annotated[int, typer.Option("--texts", min=8, help="Abstracts embedded for the throughput figure.")] = 256,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Embedding throughput (abstracts/s); dense numpy vs faiss scan and hybrid latency p50/p95/p99 incl. query embedding."""
    from papersift.bench.semantic import run

    try:
        report = run(data_dir_of(data_dir), repeats, texts, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    except (FileNotFoundError, model_registry.ModelError) as exc:
        fail(str(exc))
    emit_report("bench-semantic", report.to_dict(), report.markdown(), reports_dir, as_json)


@bench_app.command("vectors")
def bench_vectors(
    data_dir: DataDirOption = None,
    model: Annotated[str, typer.Option("--model", help="Whose vectors generation to measure.")] = model_registry.DEFAULT_MODEL,
    nlist: Annotated[list[int], typer.Option(
        "--nlist", min=1, help="Also build a faiss IVF index with this many lists (repeatable).")] = [],  # noqa: B006
    nprobe: Annotated[list[int], typer.Option(
        "--nprobe", min=1, help="Lists each IVF search visits (repeatable; no rebuild).")] = [16, 64, 256, 1024],  # noqa: B006
    int8: Annotated[bool, typer.Option("--int8/--no-int8", help="Also numpy over int8 rows (not a storage kind).")] = True,
    threads: Annotated[int, typer.Option("--threads", min=0, help="Threads training and filling an IVF index (0: all cores).")] = 0,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Ways of searching one vectors generation: numpy in memory and over the memory-mapped file,
    the faiss scan, optionally faiss IVF; recall@20 against exact float32 search (and tie-aware),
    p50/p99 query latency, build time, file size, process RSS."""
    from papersift.bench import vectors as bench
    from papersift.bench.semantic import bench_queries
    from papersift.index.vectors import VectorIndex
    from papersift.search.semantic import shared_encoder

    try:
        model_registry.get_spec(model)
        index = VectorIndex.open(data_dir_of(data_dir), model)
        if index is None:
            fail(f"no {model} vectors in {data_dir_of(data_dir)}; run 'papersift embed --model {model}' first")
        encoder = shared_encoder(model)
        queries = encoder.encode_queries([query for _, query in bench_queries()])
    except (FileNotFoundError, model_registry.ModelError) as exc:
        fail(str(exc))
    report = bench.run(index, queries, nlist, nprobe, int8, threads, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    emit_report("bench-vectors", report, bench.markdown(report), reports_dir, as_json)


@bench_app.command("embed")
def bench_embed(
    data_dir: DataDirOption = None,
    threads: Annotated[int, typer.Option("--threads", min=1, help="CPU threads for every model.")] = 1,
    texts: Annotated[int, typer.Option("--texts", min=8, help="Papers e5 embeds for its throughput figures.")] = 64,
    quality: Annotated[bool, typer.Option("--quality/--no-quality", help="Also rank the dev benchmarks per stage.")] = True,
    speed_texts: Annotated[int, typer.Option(
        "--speed-texts", min=0, help="Passages for the per-setting speed sweep (precision, threads, graph level, "
                                     "batch, length sorting, truncation); 0 skips it.")] = 0,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Interleaved repeats of the speed sweep.")] = 2,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="Where eval corpora are kept (as 'papersift eval').")] = None,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Static first pass vs e5: passages/s per model and setting, time to cover every paper, quality per stage."""
    from papersift.bench.embed import markdown, run
    from papersift.config import shared_data_dir

    directory = data_dir_of(data_dir)
    require_writable(directory)  # the static vectors are published into it
    try:
        report = run(directory, shared_data_dir(), threads, texts, cache_dir, quality,
                     log=lambda message: err_console.print(f"[dim]{escape(message)}[/]"),
                     speed_texts=speed_texts, repeats=repeats)
    except (FileNotFoundError, model_registry.ModelError) as exc:
        fail(str(exc))
    emit_report("bench-embed", report, markdown(report), reports_dir, as_json)
