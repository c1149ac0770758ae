"""API writes go to the data dir's store and embedded index: a server that searches another
backend (a Typesense cluster) refuses them instead of answering "added" for papers its
searches will never find."""

from __future__ import annotations

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from papersift.cli import app as cli_app
from papersift.search.service import SearchService
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir

TOKEN = "s3cret-token-of-24-chars"
NEW_PAPER = {"id": "TEST-2025-cluster", "title": "Papers a cluster never sees", "venue": "COLM", "year": 2025}


class ClusterBackend:
    """Stands for TypesenseBackend: any backend that is not the data dir's embedded index."""

    def refresh(self, force: bool = False) -> None:
        raise AssertionError("a refused write must not touch the backend")


def test_writes_to_a_server_on_another_backend_are_refused(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:20])
    before = Store(data_dir, readonly=True).count()
    service = SearchService(data_dir, backend=ClusterBackend())
    with TestClient(create_app(data_dir, service=service, allowed_hosts=TEST_HOSTS, enable_writes=True, write_token=TOKEN)) as client:
        response = client.post("/api/papers", json=[NEW_PAPER], headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 501 and response.json()["error"] == "writes_not_supported"
    assert Store(data_dir, readonly=True).count() == before


def test_serve_refuses_writes_with_the_typesense_backend(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:20])
    result = CliRunner().invoke(cli_app, ["serve", "--data-dir", str(data_dir), "--backend", "typesense",
                                          "--nodes", "127.0.0.1:1", "--api-key", "k",
                                          "--enable-writes", "--write-token", TOKEN])
    assert result.exit_code != 0
    assert "--enable-writes with --backend typesense" in result.output
