"""Command line interface: thin wrappers over the core API (one module per command group)."""

from papersift.cli import ingest_cmd  # noqa: F401  (registers commands)
from papersift.cli import fetch_cmd  # noqa: F401
from papersift.cli import serve_cmd  # noqa: F401
from papersift.cli import search_cmd  # noqa: F401
from papersift.cli import eval_cmd  # noqa: F401
from papersift.cli import bench_cmd  # noqa: F401
from papersift.cli import embed_cmd  # noqa: F401
from papersift.cli import cluster_cmd  # noqa: F401
from papersift.cli import topics_cmd  # noqa: F401
from papersift.cli.app import app


def main() -> None:
    app()
