"""A real 3-node Typesense cluster on 127.0.0.1: loopback only, leader election, failover drill."""

from __future__ import annotations

import pytest

from loopback_sockets import listening_addresses
from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_index import build_collection, make_client
from papersift.cluster.failover import run_failover_drill
from papersift.cluster.typesense_cluster import TypesenseCluster, free_ports, loopback_nodes
from papersift.ingest.pipeline import ingest_paths
from papersift.search.query import parse_query
from papersift.store import Store

pytestmark = pytest.mark.cluster

API_KEY = "test-key"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    nodes = loopback_nodes(3, free_ports(6))
    with TypesenseCluster(tmp_path_factory.mktemp("cluster"), nodes, API_KEY) as running:
        running.start(wait=90)
        yield running


def test_every_node_listens_on_loopback_only(cluster):
    pids = [cluster.pid(name) for name in cluster.nodes]
    addresses = listening_addresses(pids)
    expected = {f"127.0.0.1:{port}" for node in cluster.nodes.values() for port in (node.api_port, node.peering_port)}
    assert set(addresses) == expected


def test_one_leader_two_followers(cluster):
    assert sorted(cluster.states().values()) == [1, 4, 4]


@pytest.mark.drill
def test_failover_drill_no_errors_outside_the_window(cluster, sample_jsonl, tmp_path):
    store = Store(tmp_path / "data")
    ingest_paths(store, [sample_jsonl])
    client = make_client(cluster.node_urls(), API_KEY)  # the defaults operators get
    built = build_collection(client, store)
    backend = TypesenseBackend(client)
    queries = [parse_query(text) for text in ("graph neural network", "reinforcement learning", "kernel methods")]

    def search(step: int) -> None:
        result = backend.search(queries[step % len(queries)], limit=10)
        assert result.total > 0

    papers = [paper for _, paper in store.iter_papers()][:50]
    report = run_failover_drill(cluster, search, client, built.collection, papers, warmup_s=1.5, after_s=2.0)
    print(report.as_dict())
    # the load ran across the kill and was served again after the window, however fast it went
    assert report.queries_after_window > 0 and report.writes_after_window > 0
    assert report.query_errors_outside_window == 0, report.errors_outside_window
    assert report.write_errors_outside_window == 0, report.errors_outside_window
    assert report.new_leader != report.killed_node
    assert report.rejoined_documents >= report.leader_documents > built.total
    assert sorted(cluster.states().values()) == [1, 4, 4]  # the killed node is back as a follower
