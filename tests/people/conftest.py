"""A store of real raw listings (ICLR 2017/2018 with their rejections, COLM 2024/2025 with
OpenReview ids and affiliations), identities built and keyword-indexed, and an app over it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from papersift.index import lexical
from papersift.ingest.pipeline import ingest_paths
from papersift.people.identity import build
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

LISTINGS = ("iclr/iclr2018.json.gz", "iclr/iclr2017.json.gz", "colm/colm2024.json.gz", "colm/colm2025.json.gz")


@pytest.fixture(scope="module")
def people_dir(shared_data, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("people")
    store = Store(data_dir)
    raw = shared_data / "ml_papers" / "raw" / "paperlists"
    ingest_paths(store, [raw / listing for listing in LISTINGS])
    build(store)
    store.close()
    lexical.build(data_dir)
    return data_dir


@pytest.fixture(scope="module")
def people_client(people_dir):
    return TestClient(create_app(people_dir, allowed_hosts=TEST_HOSTS))


