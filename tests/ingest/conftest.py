"""Helpers for reader tests: the normalized corpus grouped by source file, one-file ingests."""

from __future__ import annotations

import gzip
from collections import defaultdict
from pathlib import Path

import orjson
import pytest

from papersift.ingest.pipeline import ingest_paths
from papersift.record import Paper
from papersift.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="session")
def ml_papers(shared_data) -> Path:
    return shared_data / "ml_papers"


@pytest.fixture(scope="session")
def normalized_by_source(ml_papers) -> dict[str, list[dict]]:
    """Every normalized record (main + title-only), grouped by its `source` (the raw file)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for name in ("papers.jsonl.gz", "papers_title_only.jsonl.gz"):
        with gzip.open(ml_papers / name, "rb") as handle:
            for line in handle:
                record = orjson.loads(line)
                groups[record["source"]].append(record)
    return dict(groups)


def ingest_into(data_dir: Path, paths: list[Path], format_name: str | None = None) -> tuple[dict[str, Paper], object]:
    """Ingest into a fresh store; (papers by id, summary)."""
    store = Store(data_dir)
    summary = ingest_paths(store, paths, format_name)
    papers = {paper.id: paper for _, paper in store.iter_papers()}
    store.close()
    return papers, summary


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path
