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


def test_term_glosses_look_up_each_run_of_matched_words_then_its_words():
    from dataclasses import dataclass

    from papersift.record import paper_from_dict
    from papersift.search.display import term_glosses
    from papersift.search.types import Hit

    @dataclass
    class Entry:
        zh: str

    known = {"graph neural networks": "图神经网络", "attention": "注意力", "layers": "层"}
    asked: list[str] = []

    def lookup_en(text: str) -> list:
        asked.append(text)
        return [Entry(known[text.lower()])] if text.lower() in known else []

    paper = paper_from_dict({"id": "p1", "title": "Graph neural networks", "abstract": "x"})
    hit = Hit(paper, 1.0, {"title": "<mark>Graph</mark> <mark>neural</mark> <mark>networks</mark> with &lt;b&gt;",
                           "abstract": "deep <mark>attention</mark> and <mark>deep</mark>-<mark>layers</mark>"})
    glosses = term_glosses(hit, lookup_en)
    assert glosses == [("graph neural networks", "图神经网络"), ("attention", "注意力"), ("layers", "层")]
    assert "deep-layers" in asked and "deep" in asked  # the run first, then its words
