"""papersift ingest / stats / show."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

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
from papersift.ingest.pipeline import StrictModeStop, ingest_paths
from papersift.store import StorageFullError, Store, StoreError


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files to ingest (JSONL, raw conference JSON, BibTeX, CSV, OpenReview, arXiv).")],
    data_dir: DataDirOption = None,
    format_name: Annotated[str | None, typer.Option("--format", help="Force a reader instead of detecting it.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first rejected record.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Read paper records into the store; bad records are reported, good ones kept.

    Each batch of 2,000 papers is one transaction: a kill or a fault (full disk) keeps the
    batches committed before it, and running the same command again completes the rest."""
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        fail(f"no such file: {', '.join(missing)}")
    directory = data_dir_of(data_dir)
    require_writable(directory)
    try:
        store = Store(directory)
    except StoreError as problem:
        fail(escape(str(problem)))
    try:
        with _progress(disable=as_json) as progress:
            task = progress.add_task("ingest", total=None)
            summary = ingest_paths(store, paths, format_name, strict, lambda n: progress.advance(task, n))
    except StrictModeStop as stop:
        fail(f"rejected (--strict): {escape(str(stop.error))}")
    except StorageFullError as problem:
        fail(f"{escape(str(problem))}. Free space and run the same ingest again: the batches committed before "
             "it are kept")
    except StoreError as problem:
        fail(escape(str(problem)))
    except KeyboardInterrupt:
        fail("interrupted; the batches committed so far are kept, run the same ingest again to finish", code=130)
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_summary(summary)
    if summary.rejected:
        raise typer.Exit(1)


def _progress(disable: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console, disable=disable, transient=False,
    )


def _print_summary(summary) -> None:
    for error in summary.errors[:50]:
        err_console.print(f"[red]rejected[/] {escape(str(error))}", highlight=False, soft_wrap=True)
    if len(summary.errors) > 50:
        err_console.print(f"... and {len(summary.errors) - 50} more ('--json' lists up to 1000)")
    counts = summary.counts
    console.print(
        f"{summary.files} file(s), {summary.read} records: {counts.added} added, {counts.updated} updated, "
        f"{counts.merged} merged, {counts.unchanged} unchanged, {summary.skipped} skipped, {summary.rejected} rejected",
        highlight=False, soft_wrap=True,
    )


@app.command()
def stats(data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Counts by venue, year and area; how many papers lack an abstract."""
    store = _open_store(data_dir)
    summary = store.stats()
    if as_json:
        print_json(summary)
        return
    console.print(f"[bold]{summary['papers']}[/] papers, {summary['missing_abstract']} without abstract")
    for run in summary["interrupted_runs"]:
        console.print(f"[yellow]ingest run {run['run_id']} was interrupted[/] (its process died before it finished): "
                      f"{escape(' '.join(run['paths']))}; run it again to complete it", highlight=False, soft_wrap=True)
    for title in ("by_venue", "by_area"):
        console.print(f"[bold]{title.replace('_', ' ')}[/]")
        for key, count in summary[title].items():
            console.print(f"  {escape(key):<50} {count:>7}", highlight=False)


@app.command()
def show(paper_id: str, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """One paper, by id."""
    paper = _open_store(data_dir).get(paper_id)
    if paper is None:
        fail(f"no paper with id '{paper_id}'")
    if as_json:
        print_json(paper.to_dict())
        return
    console.print(f"[dim]{escape(paper.topic or '')}[/]")
    console.print(f"[bold]{escape(paper.title)}[/]  [dim]{escape(paper.venue or '')} {paper.year or ''}[/]")
    console.print(escape(", ".join(paper.authors)))
    console.print(escape(paper.abstract or "(no abstract)"))
    if paper.url:
        console.print(escape(paper.url))


def _open_store(data_dir) -> Store:
    try:
        return Store(data_dir_of(data_dir), readonly=True)
    except FileNotFoundError as exc:
        fail(str(exc))
