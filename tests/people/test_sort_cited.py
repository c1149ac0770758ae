"""sort=cited: most cited first, papers without a count after every counted one (never as zero)."""

from __future__ import annotations

from papersift.search.service import SearchService
from papersift.search.types import Filters, SearchRequest


def test_most_cited_first_and_unknown_counts_last(people_dir):
    service = SearchService(people_dir)
    request = SearchRequest(query="", mode="keyword", filters=Filters(venues=("ICLR",)), sort="cited", size=100)
    first = service.search(request)
    assert first.total == 427 + 245  # ICLR 2017 and 2018 accepted papers, rejections left out
    counts = [hit.paper.citations for hit in first.hits]
    assert counts == sorted(counts, reverse=True) and counts[0] > 1000
    pages = [service.search(SearchRequest(query="", mode="keyword", filters=Filters(venues=("ICLR",)), sort="cited",
                                          size=100, page=page)) for page in range(1, 8)]
    ordered = [hit.paper.citations for response in pages for hit in response.hits]
    assert len(ordered) == first.total
    known = [count for count in ordered if count is not None]
    assert None in ordered and ordered.index(None) == len(known)  # every missing count after the counted ones
    assert (known == sorted(known, reverse=True) and 0 in known) or min(known) >= 0


def test_api_sort_cited_with_a_query(people_client):
    body = people_client.get("/api/search", params={"q": "adversarial", "mode": "keyword", "sort": "cited"}).json()
    counts = [hit["paper"]["citations"] for hit in body["hits"]]
    assert body["total"] > 5 and counts == sorted(counts, key=lambda c: -1 if c is None else c, reverse=True)
    assert all(hit["paper"]["citations_as_of"] == "2026-02-23" for hit in body["hits"] if hit["paper"]["citations"])
