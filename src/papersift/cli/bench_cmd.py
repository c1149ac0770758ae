"""papersift bench ...: benchmarks are commands that write reports (JSON + markdown)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.app import JsonOption, app, emit_report, err_console, fail

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


@bench_app.command("zhterms")
def bench_zhterms(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Data dir holding the ml_papers corpus.")],
    mode: Annotated[list[str], typer.Option("--mode", help="Modes to measure (repeatable).")] = ["keyword"],  # noqa: B006
    dataset: Annotated[Path | None, typer.Option("--dataset", help="zhterms folder (queries_dev.jsonl, qrels_dev.tsv).")] = None,
    half: Annotated[str, typer.Option("--half", help="all, A (develop) or B (confirm).")] = "all",
    reports_dir: ReportsDirOption = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Chinese ML terms against their English twins through SearchService.search (the /api/search
    path): zh/en MRR@10 and Recall@10 per mode, with the ratios."""
    from papersift.bench import zhterms

    dataset = dataset or zhterms.DEFAULT_DATASET
    if not (dataset / "queries_dev.jsonl").is_file():
        fail(f"--dataset: no queries_dev.jsonl in {dataset}")
    if half not in ("all", "A", "B"):
        fail(f"--half must be all, A or B, not {half!r}")
    for name in mode:
        if name not in ("keyword", "semantic", "hybrid"):
            fail(f"--mode must be keyword, semantic or hybrid, not {name!r}")
    report = zhterms.run(data_dir, mode, dataset, half, log=lambda message: err_console.print(f"[dim]{message}[/]"))
    emit_report("bench-zhterms", report, zhterms.markdown(report), reports_dir, as_json)
