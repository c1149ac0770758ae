"""Issue 28 item 4: a paper whose abstract carries PDF-extraction debris is found by the words
as written ("algorithms" for "algo(cid:173) rithms") and its snippet marks the whole word.
Real papers of the sample corpus, each with a word it has nowhere else (not even another form of
it: "algorithms" only as "algo(cid:173) rithms"); the display-only cleaning (before) neither found
them nor marked the word in the API's highlights."""

from __future__ import annotations

import pytest

from papersift.search.types import SearchRequest

SOFT_HYPHEN_PAPER = "NeurIPS-1991-3f3fc69c8d"  # "... algo(cid:173) rithms ..."
LINE_END_PAPER = "AISTATS-2022-5706e5f634"  # "... inde- pendent ..."


def _ids(service, query: str) -> list[str]:
    response = service.search(SearchRequest(query=query, mode="keyword", size=100))
    return [hit.paper.id for hit in response.hits]


def test_the_sample_papers_carry_the_debris_in_the_store(service):
    assert "algo(cid:173) rithms" in (service.get(SOFT_HYPHEN_PAPER).abstract or "")
    assert "inde- pendent" in (service.get(LINE_END_PAPER).abstract or "")


@pytest.mark.parametrize(("query", "paper_id"), [
    ("algorithms year:1991", SOFT_HYPHEN_PAPER),
    ('"algorithms" venue:NeurIPS year:1991', SOFT_HYPHEN_PAPER),
    ("independent year:2022 venue:AISTATS", LINE_END_PAPER),
])
def test_a_word_broken_by_the_pdf_is_found_as_written(service, query, paper_id):
    assert paper_id in _ids(service, query)


def test_the_snippet_marks_the_whole_word_without_the_debris(service):
    response = service.search(SearchRequest(query="algorithms year:1991", mode="keyword", size=100))
    hit = next(hit for hit in response.hits if hit.paper.id == SOFT_HYPHEN_PAPER)
    snippet = hit.highlights["abstract"]
    assert "(cid:173)" not in snippet
    assert "<mark>algorithms</mark>" in snippet.lower()
    assert "(cid:173)" in (hit.paper.abstract or "")  # the record keeps the text as ingested
