"""The library page (/library: tags with counts, each paper's mark, reading state and note,
export links) and a tag's recommendations (/library/recommend?tag=...), read-only and
server-rendered like the other pages. Changes go through the CLI or the token-gated API for
now; forms on the page come with accounts and CSRF tokens (issue 17, a later step)."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from papersift import extras
from papersift.api.backend import request_lang
from papersift.api.library_routes import library_of
from papersift.api.params import PaperParams, SearchParams
from papersift.i18n import Lang
from papersift.library.entries import MAX_TAG_CHARS, LibraryError
from papersift.library.recommend import explanation
from papersift.web.urls import SearchState

router = APIRouter(include_in_schema=False)


class LibraryPageParams(PaperParams):
    tag: Annotated[str | None, Field(max_length=MAX_TAG_CHARS)] = None
    k: Annotated[int, Field(ge=1, le=100)] = 20

LABELS = {
    "en": {"library": "Library", "tags": "Tags", "all": "All papers", "empty": "Your library is empty: tag, like or "
           "note papers with `papersift library ...` or POST /api/library/....", "liked": "liked",
           "not_interested": "not interested", "to-read": "to read", "read": "read", "note": "Note", "added": "added",
           "export": "Export", "recommend": "Recommendations", "recommend_for": "Recommended for tag",
           "recommend_all": "Recommended from your library", "unavailable": "Recommendations are not available",
           "papers": "papers"},
    "zh": {"library": "文献库", "tags": "标签", "all": "全部论文", "empty": "文献库为空：用 `papersift library ...` 或 "
           "POST /api/library/... 给论文加标签、喜欢或笔记。", "liked": "喜欢", "not_interested": "不感兴趣",
           "to-read": "待读", "read": "已读", "note": "笔记", "added": "加入于", "export": "导出",
           "recommend": "推荐", "recommend_for": "标签推荐", "recommend_all": "根据文献库推荐",
           "unavailable": "暂无推荐", "papers": "篇论文"},
}


def _render(request: Request, template: str, lang: Lang, **context) -> HTMLResponse:
    from papersift.web.routes import render  # the page machinery (imports this module to mount it)

    return render(request, template, lang, state=SearchState(SearchParams(), lang), labels=LABELS[lang], **context)


@router.get("/library", response_class=HTMLResponse)
def library_page(request: Request, params: Annotated[LibraryPageParams, Query()]) -> HTMLResponse:
    lang, tag = request_lang(request, params.lang), params.tag
    library = library_of(request)
    entries = library.entries(tag=tag)
    papers = library.store.get_many([entry.paper_id for entry in entries])
    rows = [(entry, papers.get(entry.paper_id), time.strftime("%Y-%m-%d", time.localtime(entry.added_at)))
            for entry in entries]
    return _render(request, "library.html", lang, tags=library.tags(), rows=rows, tag=tag,
                   can_recommend=extras.available("recommend"))


@router.get("/library/recommend", response_class=HTMLResponse)
def recommend_page(request: Request, params: Annotated[LibraryPageParams, Query()]) -> HTMLResponse:
    lang, tag, k = request_lang(request, params.lang), params.tag, params.k
    library = library_of(request)
    hits: list = []
    problem: str | None = None
    papers: dict = {}
    if not extras.available("recommend"):
        problem = "recommendations need papersift[recommend] (scikit-learn) on the server"
    else:
        from papersift.library.features import FeaturesMissing, load_features
        from papersift.library.recommend import NothingToLearn, recommend

        try:
            hits, _ = recommend(load_features(request.app.state.settings.data_dir), library, tag, k)
        except (FeaturesMissing, NothingToLearn, LibraryError) as error:
            problem = str(error)
        papers = library.store.get_many([hit.paper_id for hit in hits] + [pid for hit in hits for pid, _ in hit.because])
    rows = [(hit, papers.get(hit.paper_id), explanation([papers[pid].title for pid, _ in hit.because if pid in papers], tag))
            for hit in hits]
    return _render(request, "library_recommend.html", lang, tag=tag, rows=rows, problem=problem)
