"""Command line interface: thin wrappers over the core API (one module per command group)."""

import os
import sys
from importlib import import_module

# Importing a command module registers its commands on the app, in this order: the order of
# `papersift --help` and docs/cli.md.
COMMAND_MODULES = ("ingest_cmd", "fetch_cmd", "serve_cmd", "index_cmd", "search_cmd", "eval_cmd", "bench_cmd",
                   "models_cmd", "embed_cmd", "similar_cmd", "cluster_cmd", "topics_cmd", "author_cmd", "venue_cmd",
                   "update_cmd", "library_cmd", "saved_cmd", "digest_cmd", "users_cmd", "glossary_cmd", "rank_cmd")
# Each top-level command or group -> the modules that register it (tests/cli/test_lazy_commands.py
# checks this against the app with every module loaded). `papersift search ...` imports
# search_cmd alone: every module together took ~0.8 s of CPU to import, most of a one-query call.
COMMANDS: dict[str, tuple[str, ...]] = {
    "ingest": ("ingest_cmd",), "stats": ("ingest_cmd",), "show": ("ingest_cmd",), "fetch": ("fetch_cmd",),
    "serve": ("serve_cmd",), "quickstart": ("serve_cmd",), "index": ("index_cmd",), "search": ("search_cmd",),
    "eval": ("eval_cmd",), "bench": ("bench_cmd", "serve_cmd"), "models": ("models_cmd",), "embed": ("embed_cmd",),
    "similar": ("similar_cmd",), "cluster": ("cluster_cmd",), "topics": ("topics_cmd",), "plot": ("topics_cmd",),
    "author": ("author_cmd",), "authors": ("author_cmd",), "venue": ("venue_cmd",), "update": ("update_cmd",),
    "recommend": ("library_cmd",), "library": ("library_cmd",), "saved": ("saved_cmd",),
    "feed-token": ("saved_cmd",), "digest": ("digest_cmd",), "users": ("users_cmd",), "glossary": ("glossary_cmd",),
    "rank": ("rank_cmd",),
}


def command_modules(argv: list[str]) -> tuple[str, ...]:
    """The command modules to load for a process: the named command's alone when the process is
    the CLI (`papersift NAME ...`, `python -m papersift NAME ...`), else all of them (help, a
    mistyped command, docs, tests and anything importing the app)."""
    program = argv[0] if argv else ""
    is_cli = os.path.basename(program) == "papersift" or program.endswith(os.path.join("papersift", "__main__.py"))
    return COMMANDS.get(argv[1], COMMAND_MODULES) if is_cli and len(argv) > 1 else COMMAND_MODULES


for _module in command_modules(sys.argv):
    import_module(f"papersift.cli.{_module}")

import typer.main  # noqa: E402 - after the commands (the app's order)

from papersift.cli.app import app  # noqa: E402
from papersift.extras import MissingExtra, extra_for  # noqa: E402


def main() -> None:
    """Run the CLI; a command that needs an extra that is not installed fails with one line naming it."""
    try:
        # always a group: with one command module loaded, typer would run a lone command
        # without its name (`papersift search X` read as the query "search")
        typer.main.get_group(app)()
    except MissingExtra as error:
        _missing_extra(error)
    except ModuleNotFoundError as error:
        missing = extra_for(error)
        if missing is None:
            raise
        _missing_extra(missing)


def _missing_extra(error: MissingExtra) -> None:
    print(f"error: {error}", file=sys.stderr)
    raise SystemExit(1)
