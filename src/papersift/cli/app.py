"""The typer app and what every command shares: --data-dir, --json output, errors to stderr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, NoReturn

import orjson
import typer
from rich.console import Console

from papersift.config import DATA_DIR_ENV, resolve_data_dir

app = typer.Typer(
    name="papersift",
    help="papersift: paper search engine (论文检索) for ML conference papers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", envvar=DATA_DIR_ENV, help="Data directory (default: ~/.local/share/papersift)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def data_dir_of(data_dir: Path | None) -> Path:
    return resolve_data_dir(data_dir)


def print_json(value) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")


def emit_report(name: str, data, markdown: str, reports_dir: Path, as_json: bool) -> None:
    """Save a benchmark's NAME.json + NAME.md, then print the JSON or the table."""
    from papersift.bench.report import save_report

    json_path, markdown_path = save_report(reports_dir, name, data, markdown)
    err_console.print(f"[dim]reports: {json_path} {markdown_path}[/]")
    if as_json:
        print_json(data)
    else:
        console.print(markdown, highlight=False, markup=False)


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)
