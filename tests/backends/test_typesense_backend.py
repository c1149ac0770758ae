"""The Typesense backend against the embedded one, on a real 3-node cluster over a corpus slice."""

from __future__ import annotations

import orjson
import pytest

from papersift.backends import bm25
from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_index import (
    ALIAS,
    alias_target,
    build_collection,
    make_client,
    paper_document,
    update_collection,
    wait_for_count,
)
from papersift.cluster.typesense_cluster import TypesenseCluster, free_ports, loopback_nodes
from papersift.index import lexical
from papersift.ingest.pipeline import ingest_paths
from papersift.search.service import SearchService
from papersift.search.types import LABEL_FACET_FIELDS, Filters, SearchRequest
from papersift.store import Store

pytestmark = pytest.mark.cluster

API_KEY = "test-key"


def label_facets(facets: dict) -> dict:
    """The facets both backends count (Typesense has no code / institution facets)."""
    return {name: facets[name] for name in LABEL_FACET_FIELDS}


@pytest.fixture(scope="module")
def data_dir(sample_jsonl, tmp_path_factory):
    folder = tmp_path_factory.mktemp("typesense_data")
    ingest_paths(Store(folder), [sample_jsonl])
    lexical.build(folder)
    return folder


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    nodes = loopback_nodes(3, free_ports(6))
    with TypesenseCluster(tmp_path_factory.mktemp("ts_cluster"), nodes, API_KEY) as running:
        running.start(wait=90)
        yield running


@pytest.fixture(scope="module")
def client(cluster, data_dir):
    client = make_client(cluster.node_urls(), API_KEY)
    build_collection(client, Store(data_dir))
    return client


@pytest.fixture(scope="module")
def services(client, data_dir):
    return SearchService(data_dir), SearchService(data_dir, backend=TypesenseBackend(client))


def s2cs_queries(shared_data) -> list[str]:
    lines = (shared_data / "s2cs_queries" / "s2_query.jsonl").read_text().splitlines()
    return [orjson.loads(line)["query"] for line in lines]


def top_ids(service, request: SearchRequest) -> list[str]:
    return [hit.paper.id for hit in service.search(request).hits]


def test_keyword_top10_agrees_with_the_embedded_backend(services, shared_data):
    embedded, clustered = services
    agreements = []
    for text in s2cs_queries(shared_data):
        request = SearchRequest(query=text, mode="keyword", size=10)
        expected, got = top_ids(embedded, request), top_ids(clustered, request)
        agreements.append(len(set(expected) & set(got)) / len(expected) if expected else float(not got))
    assert sum(agreements) / len(agreements) >= 0.9


@pytest.mark.parametrize(
    "text", ["graph neural network", "reinforcement learning venue:ICML", '"neural network" year:2015..2020', "title:attention"])
def test_totals_facets_paging_and_highlights_agree(services, text):
    embedded, clustered = services
    for page in (1, 2):
        request = SearchRequest(query=text, mode="keyword", size=10, page=page)
        expected, got = embedded.search(request), clustered.search(request)
        assert got.total == expected.total
        assert got.facets == label_facets(expected.facets)
        assert [h.score for h in got.hits] == pytest.approx([h.score for h in expected.hits], rel=1e-4)
        # Equal scores may come in another order; above the page's lowest score the papers are the same.
        lowest = round(expected.hits[-1].score, 3)
        assert above(got.hits, lowest) == above(expected.hits, lowest)
        highlights = {h.paper.id: h.highlights for h in expected.hits}
        assert all(h.highlights == highlights[h.paper.id] for h in got.hits if h.paper.id in highlights)


def above(hits, lowest: float) -> set[str]:
    return {hit.paper.id for hit in hits if round(hit.score, 3) > lowest}


def test_filters_without_words_page_by_year(services):
    embedded, clustered = services
    request = SearchRequest(query="", mode="keyword", filters=Filters(venues=("COLT",)), sort="newest", size=20)
    expected, got = embedded.search(request), clustered.search(request)
    assert got.total == expected.total > 0
    assert [h.paper.year for h in got.hits] == [h.paper.year for h in expected.hits]


def test_update_upserts_new_papers_and_rebuild_swaps_the_alias(client, data_dir, tmp_path):
    live = alias_target(client)
    assert update_collection(client, Store(data_dir)).imported == 0
    rebuilt = build_collection(client, Store(data_dir))
    assert rebuilt.collection != live and alias_target(client) == rebuilt.collection
    assert rebuilt.total == Store(data_dir).count()


def test_a_killed_build_resumes_where_it_stopped(client, data_dir):
    store = Store(data_dir)
    first = [(seq, paper) for seq, paper in store.iter_papers()][:300]
    # An unfinished build: a collection of this schema holding the first 300 papers, no alias on it.
    from papersift.backends.typesense_index import COLLECTION_PREFIX, collection_schema, import_documents

    name = f"{COLLECTION_PREFIX}99990101000000_000000"
    client.collections.create(collection_schema(name, None))
    import_documents(client, name, [paper_document(seq, paper) for seq, paper in first])
    wait_for_count(client, name, 300)
    result = build_collection(client, store)
    assert result.collection == name and result.resumed_from_seq == first[-1][0]
    assert result.imported == store.count() - 300
    assert alias_target(client, ALIAS) == name


def test_quantized_lengths_follow_tantivys_table():
    assert [bm25.quantized_length(n) for n in (0, 23, 39, 40, 41, 57, 100)] == [0, 23, 39, 40, 40, 56, 96]


def test_candidate_filtering_past_one_typesense_page(services, data_dir):
    """The semantic/hybrid retrievers ask which of up to 1,000 candidates pass the filters."""
    from papersift.search.query import ParsedQuery

    embedded, clustered = services
    candidate_ids = [paper.id for _, paper in Store(data_dir).iter_papers()][:700]
    probe = ParsedQuery(filters=Filters(year_from=2015))
    expected = embedded.backend.search(probe, "relevance", 0, 700, with_facets=True, candidate_ids=candidate_ids)
    got = clustered.backend.search(probe, "relevance", 0, 700, with_facets=True, candidate_ids=candidate_ids)
    assert got.total == expected.total > 250
    assert set(got.paper_ids) == set(expected.paper_ids)
    assert got.facets == label_facets(expected.facets)
