"""Similar papers fall back to shared words when the service says the mode is unavailable,
which it says by a notice's code: the decision must not hang on the notice's English wording."""

from __future__ import annotations

from papersift.api.backend import similar_response
from papersift.record import Paper
from papersift.search import notices
from papersift.search.notices import Notice
from papersift.search.types import Hit, SearchRequest, SearchResponse

PAPERS = {paper_id: Paper(id=paper_id, title=f"Paper {paper_id}") for paper_id in ("query", "by-vectors", "by-words")}


class KeywordOnlyService:
    """Answers like_id with a keyword browse and a mode_unavailable notice, as SearchService
    does in a data dir without a hybrid retriever."""

    def search(self, request: SearchRequest) -> SearchResponse:
        return SearchResponse(request, 1, [Hit(PAPERS["by-vectors"], 1.0)],
                              notices=[Notice("mode_unavailable", mode=request.mode)])

    def get(self, paper_id: str) -> Paper | None:
        return PAPERS.get(paper_id)

    def rank(self, text: str, k: int = 100) -> list[tuple[str, float]]:
        return [("by-words", 2.0)]


def test_an_unavailable_mode_falls_back_to_words_whatever_the_notice_says(monkeypatch):
    monkeypatch.setitem(notices.ENGLISH, "mode_unavailable", "{mode} search is off here; showing keyword results")
    response = similar_response(KeywordOnlyService(), "query", 5)
    assert [hit.paper.id for hit in response.hits] == ["by-words"]
    assert [notice.code for notice in response.notices] == ["similar_by_words"]
