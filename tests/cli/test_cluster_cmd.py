"""papersift cluster status/index, index/serve --backend typesense, on a 1-node loopback cluster."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.cluster.typesense_cluster import TypesenseCluster, loopback_nodes
from served_papers import copy_data_dir

runner = CliRunner()
API_KEY = "cli-test-key"


@pytest.fixture(scope="module")
def node_address(tmp_path_factory):
    nodes = loopback_nodes(1)
    with TypesenseCluster(tmp_path_factory.mktemp("cli_cluster"), nodes, API_KEY) as cluster:
        cluster.start(wait=60)
        yield f"127.0.0.1:{nodes[0].api_port}"


@pytest.mark.cluster
def test_status_names_the_leader(node_address):
    result = runner.invoke(app, ["cluster", "status", "--nodes", node_address, "--api-key", API_KEY, "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout) == [{"node": node_address, "healthy": True, "role": "leader"}]


@pytest.mark.cluster
def test_index_backend_typesense_builds_then_updates(node_address, sample_data_dir, tmp_path):
    arguments = ["index", "--backend", "typesense", "--nodes", node_address, "--api-key", API_KEY,
                 "--data-dir", str(copy_data_dir(sample_data_dir, tmp_path / "data")), "--json"]
    first = runner.invoke(app, arguments)
    assert first.exit_code == 0, first.output
    built = orjson.loads(first.stdout)
    assert built["alias_swapped"] and built["imported"] == built["papers"] > 1000
    second = orjson.loads(runner.invoke(app, arguments).stdout)
    assert second["imported"] == 0 and second["collection"] == built["collection"]


def test_backend_typesense_needs_nodes_and_key(sample_data_dir, monkeypatch):
    monkeypatch.delenv("PAPERSIFT_TYPESENSE_NODES", raising=False)
    result = runner.invoke(app, ["index", "--backend", "typesense", "--data-dir", str(sample_data_dir)])
    assert result.exit_code != 0 and "--nodes" in result.output
    result = runner.invoke(app, ["serve", "--backend", "elastic", "--data-dir", str(sample_data_dir)])
    assert result.exit_code != 0 and "embedded or typesense" in result.output
