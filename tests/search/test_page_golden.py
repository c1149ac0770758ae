"""Keyword result pages are those the code before the page-speed work gave (issue #32): same
ids, scores, totals, facets, notices, papers and highlights (tests/search/page_golden.py)."""

from __future__ import annotations

import orjson
import pytest

from papersift.search.highlight import Highlighter
from search.page_golden import GOLDEN, REQUESTS, capture


@pytest.fixture(scope="module")
def golden() -> dict:
    return orjson.loads(GOLDEN.read_bytes())


@pytest.fixture(scope="module")
def captured(service, sample_records) -> dict:
    return capture(service, sample_records)


def test_the_golden_file_covers_every_request(golden):
    assert [(page["query"], page["options"]) for page in golden["pages"]] == \
        [(query, repr(options)) for query, options in REQUESTS]
    assert sum(len(page["hits"]) for page in golden["pages"]) > 500  # pages with hits, not empty ones


@pytest.mark.parametrize("at", range(len(REQUESTS)), ids=[f"{query!r} {options}" for query, options in REQUESTS])
def test_each_page_is_unchanged(golden, captured, at):
    assert captured["pages"][at] == golden["pages"][at]


def test_the_highlighter_marks_every_fixture_text_as_before(golden, captured):
    assert captured["highlights"] == golden["highlights"]


def test_the_comparison_sees_a_changed_highlight(service, sample_records, golden, monkeypatch):
    """The digests are of the marked text: one mark less changes them."""
    original = Highlighter.mark_many
    monkeypatch.setattr(Highlighter, "mark_many",
                        lambda self, texts: [text.replace("<mark>", "", 1) for text in original(self, texts)])
    assert capture(service, sample_records)["pages"][0] != golden["pages"][0]
