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
