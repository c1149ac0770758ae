"""How hits are shown: authors cut at 10 with "et al." or "等"; the JSON shape."""

from __future__ import annotations

from papersift.config import AUTHORS_SHOWN
from papersift.search.display import format_authors, language_of, search_json
from papersift.search.types import SearchRequest


def test_ten_authors_are_shown_in_full():
    names = tuple(f"Author {i}" for i in range(AUTHORS_SHOWN))
    assert format_authors(names) == ", ".join(names)


def test_more_than_ten_are_cut_with_et_al_or_deng():
    names = tuple(f"Author {i}" for i in range(AUTHORS_SHOWN + 3))
    shown = ", ".join(names[:AUTHORS_SHOWN])
    assert format_authors(names, "en") == f"{shown} et al."
    assert format_authors(names, "zh") == f"{shown}等"
    assert "Author 10" not in format_authors(names)


def test_language_follows_the_query():
    assert language_of("图神经网络") == "zh" and language_of("graph neural") == "en"


def test_response_json_shape(service):
    response = service.search(SearchRequest(query="bandit", mode="keyword", size=3))
    data = search_json(response, "en")
    assert data["total"] == response.total and len(data["hits"]) == 3
    assert {"paper", "highlights", "score", "topic_predicted", "authors_line"} <= set(data["hits"][0])
    assert {"id", "title", "authors", "abstract", "topic"} <= set(data["hits"][0]["paper"])
    assert set(data["facets"]) == {"venue", "year", "area", "subarea", "status", "code", "institution"}
