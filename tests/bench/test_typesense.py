"""The Typesense benchmark's measurements (the cluster itself is exercised in tests/cluster)."""

from __future__ import annotations

import os

import pytest

from papersift.bench.typesense import cluster_rss

pytestmark = pytest.mark.cluster  # imports the typesense extra


class _Nodes:
    """A cluster whose node n2 is not running (pid None), as after a kill."""

    def __init__(self, nodes: tuple[str, ...] = ("n1", "n2")):
        self.nodes = dict.fromkeys(nodes)

    def pid(self, name: str) -> int | None:
        return os.getpid() if name == "n1" else None


def test_a_node_that_is_not_running_is_named_not_read_from_proc_none():
    with pytest.raises(RuntimeError, match="typesense node n2 is not running"):
        cluster_rss(_Nodes())


def test_running_nodes_report_their_resident_memory():
    assert cluster_rss(_Nodes(("n1",)))[0] > 0
