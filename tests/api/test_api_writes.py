"""Writes are off by default; when enabled they need the token."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from papersift.api import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir

TOKEN = "s3cret-token-of-24-chars"
NEW_PAPER = {"id": "TEST-2025-new", "title": "Zebrafinch song grammars", "venue": "COLM", "year": 2025,
             "authors": ["New Author"], "abstract": "We parse zebrafinch songs with probabilistic grammars of birdsong."}


@pytest.fixture()
def writable_dir(sample_records, tmp_path):
    return build_served_data_dir(tmp_path / "data", sample_records[:50])


def test_writes_are_refused_by_default(client, served_data_dir):
    before = Store(served_data_dir, readonly=True).count()
    response = client.post("/api/papers", json=[NEW_PAPER], headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 403 and response.json()["error"] == "writes_disabled"
    assert Store(served_data_dir, readonly=True).count() == before


def test_enabling_writes_needs_a_token():
    with pytest.raises(ValueError, match="write_token"):
        create_app("/nonexistent", enable_writes=True)


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", "Bearer"])
def test_enabled_writes_reject_a_missing_or_wrong_token(writable_dir, header):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        headers = {"Authorization": header} if header else {}
        response = client.post("/api/papers", json=[NEW_PAPER], headers=headers)
    assert response.status_code == 401 and "Bearer" in response.json()["message"]
    assert Store(writable_dir, readonly=True).get(NEW_PAPER["id"]) is None


def test_enabled_writes_with_the_token_add_a_searchable_paper(writable_dir):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        response = client.post("/api/papers", json=[NEW_PAPER], headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200 and response.json()["added"] == 1
        hits = client.get("/api/search", params={"q": "zebrafinch", "mode": "keyword"}).json()["hits"]
    assert [hit["paper"]["id"] for hit in hits] == [NEW_PAPER["id"]]


def test_an_invalid_record_is_named(writable_dir):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        response = client.post("/api/papers", json=[NEW_PAPER, {"title": "x", "year": "soon"}],
                               headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 422 and "record 1" in response.json()["message"] and "year" in response.json()["message"]
