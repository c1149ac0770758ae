"""Serving never computes the topic map or the trends chart nor writes into the data dir:
409 naming the command until `papersift topics map` has run, 200 after, a stale map
served as stale.

Every request of the server's pages and topic routes runs between two snapshots of the
data dir (every file's path, size and mtime), which must be equal.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from topic_vectors import publish_text_vectors
from typer.testing import CliRunner

from papersift.cli import app as cli_app
from papersift.index import lexical
from papersift.record import paper_from_dict
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

# Keyword mode: the stand-in vectors (64-d) are not the query encoder's (384-d).
READ_URLS = ["/?mode=keyword", "/?q=learning&mode=keyword", "/topics", "/topics/map", "/topics/map?q=graph", "/topics/trends.svg",
             "/api/search?q=learning&mode=keyword", "/api/facets", "/api/topics/trends", "/api/topics/map",
             "/api/topics/map?method=umap", "/api/topics/map?method=pca&q=learning", "/docs", "/openapi.json"]


def snapshot(data_dir: Path) -> dict[str, tuple[int, int] | str]:
    """Every file's (size, mtime). SQLite's -shm file is the readers' shared lock index
    (WAL mode): reading touches it, so only its presence is compared."""
    return {str(path.relative_to(data_dir)): "present" if path.name.endswith("-shm") else
            (path.stat().st_size, path.stat().st_mtime_ns)
            for path in sorted(data_dir.rglob("*")) if path.is_file()}


@pytest.fixture()
def map_data_dir(sample_records, tmp_path):
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in sample_records[:300]])
    store.close()
    lexical.build(data_dir)
    publish_text_vectors(data_dir, minilm=False)
    return data_dir


def request_everything(data_dir: Path) -> dict[str, int]:
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        return {url: client.get(url).status_code for url in READ_URLS}


def test_the_map_is_409_until_the_command_has_run_and_serving_writes_nothing(map_data_dir):
    before = snapshot(map_data_dir)
    with TestClient(create_app(map_data_dir, allowed_hosts=TEST_HOSTS)) as client:
        missing = client.get("/api/topics/map")
        assert missing.status_code == 409 and missing.json()["error"] == "map_not_computed"
        assert "papersift topics map" in missing.json()["message"] and str(map_data_dir) not in missing.text
        umap = client.get("/api/topics/map", params={"method": "umap"})
        assert umap.status_code == 409 and "papersift topics map --method umap" in umap.json()["message"]
    statuses = request_everything(map_data_dir)
    assert statuses["/api/topics/map"] == statuses["/topics/trends.svg"] == 409, statuses
    assert all(code < 500 for code in statuses.values()), statuses
    assert snapshot(map_data_dir) == before

    result = CliRunner().invoke(cli_app, ["topics", "map", "--data-dir", str(map_data_dir), "--method", "pca", "--json"])
    assert result.exit_code == 0, result.output
    computed = snapshot(map_data_dir)
    assert "topics/map-pca.npz" in computed and "topics/trends.svg" in computed

    statuses = request_everything(map_data_dir)
    assert statuses["/api/topics/map"] == statuses["/topics/trends.svg"] == 200, statuses
    assert statuses["/api/topics/map?method=umap"] == 409, statuses
    assert snapshot(map_data_dir) == computed
    with TestClient(create_app(map_data_dir, allowed_hosts=TEST_HOSTS)) as client:
        body = client.get("/api/topics/map").json()
    assert body["method"] == "pca" and body["stale"] is False and body["count"] == 300


@pytest.mark.drill
def test_a_map_of_older_vectors_is_served_marked_stale_not_recomputed(map_data_dir):
    assert CliRunner().invoke(cli_app, ["topics", "map", "--data-dir", str(map_data_dir), "--method", "pca"]).exit_code == 0
    publish_text_vectors(map_data_dir, minilm=False)  # `embed` published new vectors since
    before = snapshot(map_data_dir)
    with TestClient(create_app(map_data_dir, allowed_hosts=TEST_HOSTS)) as client:
        response = client.get("/api/topics/map")
    assert response.status_code == 200 and response.json()["stale"] is True
    assert snapshot(map_data_dir) == before


def test_without_vectors_the_map_names_embed(sample_records, tmp_path):
    data_dir = tmp_path / "bare"
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in sample_records[:20]])
    store.close()
    lexical.build(data_dir)
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        response = client.get("/api/topics/map")
    assert response.status_code == 409 and response.json()["error"] == "no_embeddings"
    assert "papersift embed" in response.json()["message"] and str(data_dir) not in response.text


def test_topics_map_command_fails_in_one_line_without_vectors(sample_records, tmp_path):
    data_dir = tmp_path / "bare"
    Store(data_dir).upsert([paper_from_dict(record) for record in sample_records[:5]])
    result = CliRunner().invoke(cli_app, ["topics", "map", "--data-dir", str(data_dir)])
    assert result.exit_code != 0 and "papersift embed" in result.output and "Traceback" not in result.output
    assert not (data_dir / "topics").exists() or not os.listdir(data_dir / "topics")
