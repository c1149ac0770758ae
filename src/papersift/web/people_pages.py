"""Author and venue pages (/author/{id-or-name}, /venue/{venue}[/{year}]): the same figures as
/api/authors and /api/venues, server-rendered with the search page's look. Every value from
the data goes through Jinja's autoescape; links from the data only if http(s)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from papersift.api.backend import request_lang
from papersift.api.params import PaperParams, SearchParams
from papersift.api.people_routes import author_or_404, venue_or_404
from papersift.i18n import Lang
from papersift.web.coauthor_graph import coauthor_svg
from papersift.web.render import render
from papersift.web.urls import SearchState, author_path

router = APIRouter(include_in_schema=False)

LABELS = {
    "en": {"papers": "papers", "by_year": "Papers by year", "venues": "Venues", "coauthors": "Co-authors",
           "areas": "Areas by year",
           "area_source": "as listed by the source", "area_predicted": "predicted",
           "first_author": "first author", "last_author": "last author",
           "affiliations": "Affiliations", "most_cited": "Most cited", "cited": "cited", "as_of": "as of",
           "also_written": "Also written", "namesakes": "Others with this name",
           "by_name_warning": "Every paper by this name is listed here: it may be several people who share it.",
           "namesakes_warning": "Other people share this name: their papers are on their own pages below.", "all_papers": "Papers",
           "with_code": "with code", "code": "code", "status": "Oral / spotlight / poster",
           "no_statuses": "the source lists no statuses", "every_status": "every paper listed as {status}",
           "status_unknown": "not listed",
           "acceptance": "Acceptance", "submitted": "submitted", "accepted": "accepted", "main": "main track",
           "top_authors": "Most frequent authors", "top_institutions": "Most frequent institutions",
           "all_years": "All years", "search_these": "Search these papers",
           "search_with_code": "Papers with code", "graph_title": "Co-author graph"},
    "zh": {"papers": "篇论文", "by_year": "每年论文数", "venues": "会议", "coauthors": "合作者",
           "areas": "各年领域", "area_source": "来源标注", "area_predicted": "预测", "first_author": "第一作者", "last_author": "最后作者",
           "affiliations": "单位", "most_cited": "被引最多", "cited": "被引", "as_of": "截至",
           "also_written": "其他写法", "namesakes": "同名作者",
           "by_name_warning": "这里列出了署这个名字的全部论文：可能是几位同名的作者。",
           "namesakes_warning": "还有其他作者同名：他们的论文在下面各自的页面上。", "all_papers": "论文",
           "with_code": "有代码", "code": "代码", "status": "口头 / 亮点 / 海报",
           "no_statuses": "来源未列出论文类型", "every_status": "来源把每篇论文都列为 {status}", "status_unknown": "未列出",
           "acceptance": "录用率", "submitted": "投稿", "accepted": "录用", "main": "主会",
           "top_authors": "高产作者", "top_institutions": "高产单位",
           "all_years": "所有年份", "search_these": "检索这些论文",
           "search_with_code": "有代码的论文", "graph_title": "合作者关系图"},
}


def venue_path(venue: str, lang: str, year: int | str | None = None) -> str:
    tail = f"/{year}" if year not in (None, "") else ""
    return f"/venue/{quote(str(venue), safe='')}{tail}?{urlencode({'lang': lang})}"


class PeoplePageParams(PaperParams):
    new: bool = False  # only what is new since the last "mark as seen"


def _watching(request: Request, kind: str, key: str, back: str) -> dict:
    """What the page shows of "new since your last visit" for this venue or author."""
    from papersift.api.auth import ANONYMOUS, request_user
    from papersift.api.backend import service_of
    from papersift.api.saved_routes import following_of
    from papersift.api.writes import tables_for
    from papersift.follow.state import Following
    from papersift.follow.watches import list_watch
    from papersift.web.saved_pages import form_context

    if request_user(request) is None:  # accounts on, anonymous: a public page, nothing followed, no forms
        following = tables_for(request, Following, ANONYMOUS)
    else:
        following = following_of(request)
    watch = f"{kind}:{key}"
    return {"listing": list_watch(service_of(request), following, watch), "marked": following.mark(watch) is not None,
            "kind": kind, "key": key, "back": back, "forms": form_context(request)}


def _render(request: Request, template: str, lang: Lang, **context) -> HTMLResponse:
    from papersift.web.saved_pages import LABELS as SAVED_LABELS

    watching = context.get("watching")
    return render(request, template, lang, state=SearchState(SearchParams(), lang), labels=LABELS[lang],
                  author_path=author_path, venue_path=venue_path, saved_labels=SAVED_LABELS[lang],
                  forms=watching["forms"] if watching else {"writes": False, "csrf": None}, **context)


@router.get("/author/{author:path}", response_class=HTMLResponse)
def author_page(request: Request, author: str, params: Annotated[PeoplePageParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    profile = author_or_404(request, author[:300])
    graph = coauthor_svg(profile, lambda author_id: author_path(author_id, lang), LABELS[lang]["graph_title"],
                         LABELS[lang]["papers"])
    watching = _watching(request, "author", profile["name"], author_path(author[:300], lang))
    return _render(request, "author.html", lang, profile=profile, graph=graph, watching=watching, only_new=params.new)


@router.get("/venue/{venue}", response_class=HTMLResponse)
def venue_page(request: Request, venue: str, params: Annotated[PeoplePageParams, Query()]) -> HTMLResponse:
    return _venue(request, venue, None, params)


@router.get("/venue/{venue}/{year}", response_class=HTMLResponse)
def venue_year_page(request: Request, venue: str, year: int, params: Annotated[PeoplePageParams, Query()]) -> HTMLResponse:
    return _venue(request, venue, year, params)


def _venue(request: Request, venue: str, year: int | None, params: PeoplePageParams) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    stats = venue_or_404(request, venue[:100], year)
    watching = _watching(request, "venue", stats["venue"], venue_path(stats["venue"], lang, year))
    return _render(request, "venue.html", lang, stats=stats, watching=watching, only_new=params.new)
