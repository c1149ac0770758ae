"""The API tests run the real SearchService over a real slice, indexed by its own build."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from papersift.api import create_app
from served_papers import build_served_data_dir


@pytest.fixture(scope="session")
def served_data_dir(sample_records, tmp_path_factory):
    return build_served_data_dir(tmp_path_factory.mktemp("served"), sample_records)


@pytest.fixture(scope="session")
def app(served_data_dir):
    return create_app(served_data_dir)


@pytest.fixture(scope="session")
def client(app):
    # raise_server_exceptions=False: a 500 must show up as a response the tests can see.
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client
