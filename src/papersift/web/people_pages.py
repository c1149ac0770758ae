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
from papersift.i18n import Lang, page_labels
from papersift.web.coauthor_graph import coauthor_svg
from papersift.web.render import render
from papersift.web.urls import SearchState, author_path

router = APIRouter(include_in_schema=False)

LABELS = page_labels("people")  # i18n.MESSAGES "people.<name>"


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
