"""Where the topic commands keep their files, and the error a missing vector raises: what the
server needs of topics/, without importing scikit-learn, joblib or matplotlib (a server start
that imported them spent ~1-3 s more before it answered its first search)."""

from __future__ import annotations

from pathlib import Path

TOPICS_DIR = "topics"


class EmbeddingsUnavailable(RuntimeError):
    """Some papers have no vector yet and computing them was not allowed."""


def topics_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / TOPICS_DIR


def stored_trends_path(data_dir: str | Path) -> Path:
    """Where `papersift topics map` keeps the trends chart the topic map page shows (here, not
    in plots.py, so the server finds it without importing matplotlib)."""
    return topics_dir(data_dir) / "trends.svg"
