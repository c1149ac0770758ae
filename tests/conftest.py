"""Shared fixtures: real data slices from ../shared/data (read-only), fresh stores."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.api import create_app
from papersift.config import shared_data_dir
from papersift.ingest.pipeline import ingest_paths
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir

SHARED = shared_data_dir()
CORPUS = SHARED / "ml_papers" / "papers.jsonl.gz"
TITLE_ONLY = SHARED / "ml_papers" / "papers_title_only.jsonl.gz"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    assert CORPUS.exists(), f"shared data missing at {SHARED}: the tests need ../shared/data beside the checkout"
    return SHARED


def corpus_slice(count: int, step: int = 17) -> list[dict]:
    """Every `step`-th paper of the real corpus: spans venues and years, deterministic."""
    with gzip.open(CORPUS, "rb") as handle:
        lines = itertools.islice(handle, 0, None, step)
        return [orjson.loads(line) for line in itertools.islice(lines, count)]


@pytest.fixture(scope="session")
def sample_records(shared_data) -> list[dict]:
    """2,000 real papers, every 17th of the corpus."""
    return corpus_slice(2000)


@pytest.fixture(scope="session")
def sample_jsonl(sample_records, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "sample.jsonl"
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in sample_records))
    return path


@pytest.fixture()
def store(tmp_path) -> Store:
    return Store(tmp_path / "data")


@pytest.fixture(scope="session")
def sample_data_dir(sample_jsonl, tmp_path_factory) -> Path:
    """A data dir with the sample ingested; tests must not write to it."""
    data_dir = tmp_path_factory.mktemp("sample_data")
    summary = ingest_paths(Store(data_dir), [sample_jsonl])
    assert summary.rejected == 0
    return data_dir


@pytest.fixture(scope="session")
def served_data_dir(sample_records, tmp_path_factory) -> Path:
    """The sample plus hostile records, indexed by the service's own build (API and page tests)."""
    return build_served_data_dir(tmp_path_factory.mktemp("served"), sample_records)


@pytest.fixture(scope="session")
def app(served_data_dir):
    return create_app(served_data_dir, allowed_hosts=TEST_HOSTS)


@pytest.fixture(scope="session")
def client(app):
    # raise_server_exceptions=False: a 500 must show up as a response the tests can see.
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client
