"""Command line interface: thin wrappers over the core API (one module per command group)."""

import sys

# Importing a command module registers its commands on the app, in this order: the order of
# `papersift --help` and docs/cli.md, so the imports are not sorted.
# isort: off
from papersift.cli import ingest_cmd  # noqa: F401
from papersift.cli import fetch_cmd  # noqa: F401
from papersift.cli import serve_cmd  # noqa: F401
from papersift.cli import index_cmd  # noqa: F401
from papersift.cli import search_cmd  # noqa: F401
from papersift.cli import eval_cmd  # noqa: F401
from papersift.cli import bench_cmd  # noqa: F401
from papersift.cli import models_cmd  # noqa: F401
from papersift.cli import embed_cmd  # noqa: F401
from papersift.cli import similar_cmd  # noqa: F401
from papersift.cli import cluster_cmd  # noqa: F401
from papersift.cli import topics_cmd  # noqa: F401
from papersift.cli import author_cmd  # noqa: F401
from papersift.cli import venue_cmd  # noqa: F401
from papersift.cli import update_cmd  # noqa: F401
from papersift.cli import library_cmd  # noqa: F401
from papersift.cli import saved_cmd  # noqa: F401
from papersift.cli import digest_cmd  # noqa: F401
from papersift.cli import users_cmd  # noqa: F401
from papersift.cli import glossary_cmd  # noqa: F401
from papersift.cli import rank_cmd  # noqa: F401
# isort: on
from papersift.cli.app import app
from papersift.extras import MissingExtra, extra_for


def main() -> None:
    """Run the CLI; a command that needs an extra that is not installed fails with one line naming it."""
    try:
        app()
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
