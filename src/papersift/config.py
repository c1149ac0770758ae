"""Where papersift keeps its data, and the limits that protect every interface."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "PAPERSIFT_DATA_DIR"

# Limits shared by the CLI, the HTTP API and the page.
MAX_QUERY_CHARS = 1000
# What the query encoder reads of a semantic or hybrid query (the keyword side reads it all):
# encoding and reading a 1,000-character Chinese query took ~2 s of CPU (docs/reliability-search.md).
MAX_ENCODED_QUERY_CHARS = 200
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_PAGE = 500
AUTHORS_SHOWN = 10


def default_data_dir() -> Path:
    """Per-user default: $XDG_DATA_HOME/papersift, else ~/.local/share/papersift."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "papersift"


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """The explicit argument wins, then $PAPERSIFT_DATA_DIR, then the per-user default."""
    if data_dir:
        return Path(data_dir).expanduser()
    env_dir = os.environ.get(DATA_DIR_ENV)
    if env_dir:
        return Path(env_dir).expanduser()
    return default_data_dir()


def shared_data_dir() -> Path:
    """The shared corpora beside the checkout (../shared/data), overridable for installs."""
    env_dir = os.environ.get("PAPERSIFT_SHARED_DATA")
    if env_dir:
        return Path(env_dir)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"

def cpu_threads() -> int:
    """Cores this process may use (respects affinity masks / container limits)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)
