"""The typer app and what every command shares: --data-dir, --json output, errors to stderr."""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import orjson
import typer
from rich.console import Console
from typer.core import TyperGroup

from papersift.config import DATA_DIR_ENV, resolve_data_dir
from papersift.store_errors import FULL_ERRNOS, StoreError

READ_ONLY_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM)
SQLITE_READ_ONLY = ("readonly database", "unable to open database file", "read-only file system")
SQLITE_FULL = ("database or disk is full", "disk i/o error")


def read_only_message(error: BaseException) -> str | None:
    """One line for a write refused by the file system (read-only mount, permissions); None for
    any other error. Every command's such error ends as this line instead of a traceback."""
    if isinstance(error, OSError) and error.errno in READ_ONLY_ERRNOS:
        where = f" {error.filename}" if error.filename else ""
        return (f"cannot write{where}: {(error.strerror or os.strerror(error.errno)).lower()}. A read-only data dir can be searched and "
                f"served; ingest, index and embed need one they can write")
    if isinstance(error, sqlite3.OperationalError) and any(part in str(error).lower() for part in SQLITE_READ_ONLY):
        return (f"cannot write the data dir's database ({error}). A read-only data dir can be searched and "
                f"served; ingest, index and embed need one they can write")
    return None


def require_writable(directory: Path) -> None:
    """Stop with one line before a writing command starts (and draws its progress bar) on a
    data dir that cannot be written."""
    if directory.is_dir() and not os.access(directory, os.W_OK):
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
        fail(read_only_message(OSError(errno.EROFS if read_only else errno.EACCES,
                                       "Read-only file system" if read_only else "Permission denied", str(directory)))
             or f"cannot write {directory}")


def fault_message(error: BaseException) -> str | None:
    """One line for a fault outside papersift (read-only or full disk, a store error); None for
    anything else, which keeps its traceback (a bug)."""
    message = read_only_message(error)
    if message is not None:
        return message
    if isinstance(error, StoreError):
        return str(error)
    if isinstance(error, OSError) and error.errno in FULL_ERRNOS:
        where = f" ({error.filename})" if error.filename else ""
        return f"disk full{where}: free space and run the same command again; what was published before is intact"
    if isinstance(error, sqlite3.OperationalError) and any(part in str(error).lower() for part in SQLITE_FULL):
        return (f"the store could not be read or written ({error}); a full disk is the usual cause: free space "
                "and run the same command again")
    return None


class _CommandGroup(TyperGroup):
    """Runs the commands; a fault outside papersift (a read-only or full disk) becomes one line on stderr."""

    def invoke(self, ctx):  # typer's Context: typer.core.TyperGroup's (typer vendors click)
        try:
            return super().invoke(ctx)
        except (OSError, sqlite3.OperationalError, StoreError) as error:
            message = fault_message(error)
            if message is None:
                raise
            fail(message)


app = typer.Typer(
    cls=_CommandGroup,
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
UserOption = Annotated[
    str | None,
    typer.Option("--user", metavar="NAME",
                 help="Act on this account's data (a server run with --accounts; default: the local user)."),
]


def data_dir_of(data_dir: Path | None) -> Path:
    """The data dir every command works in, made absolute here once (the store and the lexicons
    open SQLite by file URI, which a relative path cannot be); one line when it is a file."""
    directory = resolve_data_dir(data_dir).absolute()
    if directory.exists() and not directory.is_dir():
        fail(f"the data dir {directory} is not a directory (--data-dir names the folder papersift keeps its store in)")
    return directory


def store_dir_of(data_dir: Path | None) -> Path:
    """The data dir, which must hold a store (else one line on stderr and exit 1)."""
    directory = data_dir_of(data_dir)
    if not (directory / "papers.sqlite3").exists():
        fail(f"no papersift store in {directory}; run 'papersift ingest' first")
    return directory


def user_id_of(directory: Path, name: str | None) -> str:
    """The user id whose rows a command reads and writes: the local user by default (a
    personal install has no accounts), else an existing, not removed account of this data dir
    (a typo must not make rows under a name nobody logs in as); `directory` holds a store
    (store_dir_of)."""
    from papersift.component_schema import LOCAL_USER

    if name is None or name.strip().lower() == LOCAL_USER:
        return LOCAL_USER
    from rich.markup import escape

    from papersift.accounts.users import AccountError, Accounts

    try:
        user = Accounts.open(directory, readonly=True).user(name)  # read-only: looking a name up creates no table
    except AccountError as problem:
        fail(escape(f"--user: {problem} in {directory} (see 'papersift users list')"))
    if user.removed_at is not None:
        fail(escape(f"--user: user {user.user_id!r} was removed"))
    return user.user_id


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
