"""`tag:NAME` in the query language: only the request's user's papers with that tag, in every
mode; an unknown tag gives no hits and a notice, never an error."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from papersift.library.entries import Library
from papersift.search.query import parse_query
from papersift.search.types import QuerySyntaxError
from papersift.server import create_app
from served_papers import TEST_HOSTS, build_served_data_dir


def test_the_parser_reads_tags_and_refuses_to_exclude_one():
    assert parse_query('tag:gnn tag:"reading group" graph').filters.tags == ("gnn", "reading group")
    assert parse_query("tag:a OR tag:b").filters.tags == ("a", "b")
    with pytest.raises(QuerySyntaxError, match="a tag cannot be excluded"):
        parse_query("graph -tag:gnn")


@pytest.fixture()
def tagged_client(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:200])
    library = Library.open(data_dir)
    learning = [record["id"] for record in sample_records[:200] if "learning" in (record.get("abstract") or "").lower()]
    tagged = learning[:3]
    library.tag(tagged, "reading group")
    library.store.close()
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        yield client, set(tagged), len(learning)


@pytest.mark.parametrize("mode", ["keyword", "hybrid", "semantic"])
def test_tag_restricts_every_mode_to_the_tagged_papers(tagged_client, mode):
    client, tagged, learning_total = tagged_client
    assert learning_total > 10  # without the tag, many more papers match
    found = client.get("/api/search", params={"q": 'learning tag:"reading group"', "mode": mode}).json()
    assert {hit["paper"]["id"] for hit in found["hits"]} == tagged and found["total"] == 3
    browse = client.get("/api/search", params={"q": 'tag:"reading group"', "mode": mode}).json()
    assert {hit["paper"]["id"] for hit in browse["hits"]} == tagged


def test_an_unknown_tag_is_an_empty_result_with_a_notice(tagged_client):
    client, _, _ = tagged_client
    answer = client.get("/api/search", params={"q": "learning tag:nope"})
    assert answer.status_code == 200 and answer.json()["hits"] == []
    assert any("no paper tagged 'nope'" in notice for notice in answer.json()["notices"])
    page = client.get("/", params={"q": "learning tag:nope", "lang": "zh"})
    assert page.status_code == 200 and "没有标签为“nope”的论文" in page.text


@pytest.mark.models
def test_tag_filters_real_semantic_and_hybrid_rankings(sample_records, tmp_path):
    from papersift.index import lexical
    from papersift.index.embeddings import Encoder, embed_store
    from papersift.library.search_filter import with_tag_papers
    from papersift.models import DEFAULT_MODEL, build_model
    from papersift.record import paper_from_dict
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest
    from papersift.store import Store

    build_model(DEFAULT_MODEL, log=lambda _: None)
    store = Store(tmp_path)
    store.upsert([paper_from_dict(record) for record in sample_records[:60]])
    store.close()
    lexical.build(tmp_path)
    embed_store(tmp_path, Encoder(DEFAULT_MODEL, max_tokens=128))
    library = Library.open(tmp_path)
    tagged = [record["id"] for record in sample_records[5:60:11]]
    library.tag(tagged, "picked")
    service = SearchService(tmp_path)
    for mode in ("semantic", "hybrid"):
        request, notices = with_tag_papers(library, SearchRequest(query="neural networks tag:picked", mode=mode, size=50))
        response = service.search(request)
        assert notices == [] and not any("semantic index" in notice for notice in response.notices)
        # the mode's own answer (the papers above e5's relevance floor), cut to the tag's papers
        answer = service.search(SearchRequest(query="neural networks", mode=mode, size=100))
        expected = {hit.paper.id for hit in answer.hits} & set(tagged)
        assert expected and {hit.paper.id for hit in response.hits} == expected
