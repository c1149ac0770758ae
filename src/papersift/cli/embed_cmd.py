"""papersift embed: vectors for semantic and hybrid search (resumable)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
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
    err_console,
    fail,
    print_json,
    require_writable,
)
from papersift.cli.models_cmd import ModelOption, ModelsDirOption


def _progress(disable: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
        console=err_console, disable=disable, transient=False,
    )


PLAIN_PROGRESS_EVERY_S = 30.0  # a log file (quickstart's embed.log) gets a progress line this often


def _plain_progress(as_json: bool, every_s: float = PLAIN_PROGRESS_EVERY_S):
    """`line -> None`: when stderr is no terminal (quickstart's embed.log), a progress line at
    most every `every_s` seconds (a progress bar draws nothing there until it ends: e5 was silent
    for an hour); on a terminal nothing (the bar shows it)."""
    last = [float("-inf")]

    def log_line(line: str) -> None:
        if as_json or err_console.is_terminal:
            return
        now = time.monotonic()
        if now - last[0] >= every_s:
            last[0] = now
            err_console.print(line, highlight=False, soft_wrap=True)
    return log_line


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
    variant: Annotated[str | None, typer.Option(
        "--variant", help="fp32 or int8 (default: the model's; int8 e5 is ~2x faster but ranks worse, docs/semantic.md).")] = None,
    device: Annotated[str, typer.Option(
        "--device", help="auto (CUDA when onnxruntime-gpu has it, else CPU), cpu or cuda.")] = "auto",
    as_json: JsonOption = False,
    dask: Annotated[str | None, typer.Option(
        "--dask", help="Embed on a Dask cluster: its scheduler address, or 'local' (2 workers on 127.0.0.1).")] = None,
) -> None:
    """Embed the store's papers for semantic search (cached and resumable: rerun after a kill)."""
    from papersift.index.embeddings import DEVICES, EmbedProgress, embed_papers, embed_store, make_encoder

    if corpus is None:
        require_writable(data_dir_of(data_dir))  # before the model loads
    if variant is not None and variant not in ("fp32", "int8"):
        fail(f"--variant must be fp32 or int8, not {variant!r}")
    if device not in DEVICES:
        fail(f"--device must be one of {', '.join(DEVICES)}, not {device!r}")
    try:
        if model_registry.get_spec(model).distilled_from:  # a static model: no variant, no device
            encoder = make_encoder(model, models_root=models_dir, threads=threads)
        else:
            encoder = make_encoder(model, models_root=models_dir, threads=threads, variant=variant, device=device)
    except (model_registry.ModelError, ValueError) as exc:
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

        log_line = _plain_progress(as_json)

        def report(state: EmbedProgress) -> None:
            elapsed = max(time.perf_counter() - started, 1e-9)
            todo = state.total - state.cached if limit is None else min(limit, state.total - state.cached)
            rate = f"{state.embedded / elapsed:.1f} texts/s, {state.cached} cached"
            progress.update(task, total=todo, completed=state.embedded, rate=rate)
            log_line(f"embed {model}: {state.embedded:,} of {todo:,} texts ({rate}, {elapsed:.0f} s)")

        terms_task: TaskID | None = None
        terms_started = 0.0

        def report_terms(state: EmbedProgress) -> None:
            """The term bridge's progress (index/bridge.py), once the papers are done."""
            nonlocal terms_task, terms_started
            if terms_task is None:
                terms_task = progress.add_task("terms", total=state.total - state.cached, rate="")
                terms_started = time.perf_counter()
            elapsed = max(time.perf_counter() - terms_started, 1e-9)
            rate = f"{state.embedded / elapsed:.0f} terms/s, {state.cached} cached"
            progress.update(terms_task, completed=state.embedded, rate=rate)
            log_line(f"embed {model} terms: {state.embedded:,} of {state.total - state.cached:,} ({rate})")

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
