"""papersift update: the configured fetch jobs, then ingest, index and embed what is new."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    data_dir_of,
    err_console,
    fail,
    print_json,
    require_writable,
)
from papersift.fetch.http import FetchError
from papersift.fetch.update import CONFIG_FILE, UpdateError, UpdateRunning, read_jobs, run_update


@app.command()
def update(
    config: Annotated[Path | None, typer.Option("--config", help=f"Fetch jobs (default: DATA_DIR/{CONFIG_FILE}).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Fetch (OpenReview venues, arXiv sets by OAI-PMH from the last harvest), ingest, index, embed.

    Each step is logged with its counts. Locked: a second run on the same data dir stops at once.
    Resumable: after a kill or a failed request, run it again and it goes on from the first
    unfinished step (nothing is ingested twice).
    """
    directory = data_dir_of(data_dir)
    try:
        jobs = read_jobs(config or directory / CONFIG_FILE)
    except UpdateError as exc:
        fail(escape(str(exc)), code=2)
    directory.mkdir(parents=True, exist_ok=True)
    require_writable(directory)
    try:
        report = run_update(directory, jobs, log=lambda line: err_console.print(escape(line), highlight=False))
    except UpdateRunning as exc:
        fail(escape(str(exc)))
    except (FetchError, ValueError) as exc:
        fail(escape(f"{exc} (what is done is kept: run 'papersift update' again to go on)"))
    if as_json:
        print_json(report.to_dict())
