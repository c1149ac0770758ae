"""A hybrid total counts the papers with all the words and those close in meaning, each once:
the API and the page say so, beside the keyword count (both languages)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from tests.search.conftest import indexed_copy

from hybrid_service import add_vectors_and_bridge, hybrid_service
from papersift.server import create_app
from served_papers import TEST_HOSTS


@pytest.fixture(scope="module")
def client(sample_data_dir, tmp_path_factory):
    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("ranked_total"))
    add_vectors_and_bridge(data_dir)
    service, _, _ = hybrid_service(data_dir)
    with TestClient(create_app(data_dir, service=service, allowed_hosts=TEST_HOSTS), raise_server_exceptions=True) as test_client:
        yield test_client


def test_hybrid_total_is_labelled_ranked_beside_the_keyword_matches(client):
    keyword = client.get("/api/search", params={"q": "diffusion", "mode": "keyword"}).json()
    hybrid = client.get("/api/search", params={"q": "diffusion", "mode": "hybrid"}).json()
    assert keyword["total_counts"] == "matches" and keyword["keyword_matches"] is None
    assert hybrid["total_counts"] == "ranked"
    assert hybrid["keyword_matches"] == keyword["total"] > 0
    assert hybrid["total"] > keyword["total"]  # every keyword match, and the papers close in meaning


@pytest.mark.parametrize(("lang", "wording"), [("en", "{total} papers: {matches} with all the words, the rest close in meaning"),
                                               ("zh", "共 {total} 篇论文：{matches} 篇含全部检索词，其余语义相近")])
def test_the_page_says_what_the_total_counts(client, lang, wording):
    hybrid = client.get("/api/search", params={"q": "diffusion", "mode": "hybrid"}).json()
    page = client.get("/", params={"q": "diffusion", "mode": "hybrid", "lang": lang}).text
    assert wording.format(total=f"{hybrid['total']:,}", matches=f"{hybrid['keyword_matches']:,}") in page
