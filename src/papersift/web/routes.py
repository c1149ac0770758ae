"""The page (论文检索 / Paper Search): server-rendered, works without JavaScript.

Paper text is always escaped by Jinja's autoescape; the only markup taken as is are the
service's highlight snippets, and only after checking they hold no tag but <mark>.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import Field

from papersift.api.backend import (
    PaperNotFound,
    facets_beside_filters,
    request_lang,
    service_of,
    similar_response,
    topic_tree,
)
from papersift.api.errors import ApiError
from papersift.api.library_routes import search_with_tags
from papersift.api.params import FacetParams, PaperParams, SearchParams, SimilarParams
from papersift.config import MAX_PAGE
from papersift.export import to_bibtex
from papersift.i18n import (
    translate,
)
from papersift.search.display import page_count, term_glosses
from papersift.search.intent import Intent
from papersift.web.library_forms import marks_context
from papersift.web.render import WEB_DIR, PageHooks, compile_templates, render, render_error
from papersift.web.saved_pages import LABELS as SAVED_LABELS
from papersift.web.saved_pages import form_context
from papersift.web.urls import SearchState, paper_path, search_back

FACET_LIMIT = 12

router = APIRouter(include_in_schema=False)


def reading_choices(reading, state: SearchState) -> list[tuple]:
    """Each term of a Chinese query's English reading with (alternative, URL searching the
    query with that reading instead) pairs: one click picks another reading."""
    if reading is None:
        return []
    return [(term, [(other, state.url(q=reading.with_choice(term.chinese, other).english)) for other in term.alternatives])
            for term in reading.terms]


INTENT_NOTICES = ("person_match", "filter_words", "spelling_corrected")  # the page shows these as links


def intent_chips(intent: Intent | None, state: SearchState) -> list[tuple[str, str]]:
    """(word, url of the query without it) for each word read as a venue or year filter."""
    if intent is None or not intent.filter_words:
        return []
    words = (state.params.q or "").split()
    return [(word, state.url(q=" ".join(other for other in words if other != word))) for word in intent.filter_words]


@router.get("/", response_class=HTMLResponse)
def search_page(request: Request, params: Annotated[SearchParams, Query()]) -> Response:
    lang = request_lang(request, params.lang)
    state = SearchState(params, lang)
    service = service_of(request)
    response = search_with_tags(request, service, params.to_request())
    intent = response.intent if isinstance(response.intent, Intent) else None
    if intent is not None and intent.kind == "paper_id" and intent.matched_id and response.hits:  # an id: its paper
        return RedirectResponse(paper_path(intent.matched_id, lang), status_code=303)
    if response.facets:
        response = facets_beside_filters(service, response)
    return render(
        request, "search.html", lang, state=state, response=response, params=params,
        intent_chips=intent_chips(intent, state), intent_shown=INTENT_NOTICES,
        pages=page_count(response.total, params.size, MAX_PAGE), facet_limit=FACET_LIMIT,
        reading_choices=reading_choices(response.reading, state),
        glosses={hit.paper.id: term_glosses(hit) for hit in response.hits} if params.gloss and lang == "zh" else {},
        export_urls={fmt: state.url(path="/api/export", format=fmt, page=None, size=None, facets=None, lang=None)
                     for fmt in ("bibtex", "csv", "json", "ris", "csl-json")},
        save_form=form_context(request), save_labels=SAVED_LABELS[lang],
        marks=marks_context(request, [hit.paper.id for hit in response.hits]),
        back_here=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
    )


@router.get("/paper/{paper_id:path}/similar", response_class=HTMLResponse)
def similar_page(request: Request, paper_id: str, params: Annotated[SimilarParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    try:
        response = similar_response(service_of(request), paper_id, params.size)
    except PaperNotFound:
        raise ApiError(404, "not_found", translate("not_found", lang)) from None
    paper = service_of(request).get(paper_id)
    state = SearchState(SearchParams(), lang)
    return render(request, "similar.html", lang, state=state, paper=paper, response=response,
                  marks=marks_context(request, [hit.paper.id for hit in response.hits]))


class PaperPageParams(PaperParams):
    back: Annotated[str | None, Field(max_length=2000)] = None  # the search the paper was found in


@router.get("/paper/{paper_id:path}", response_class=HTMLResponse)
def paper_page(request: Request, paper_id: str, params: Annotated[PaperPageParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    service = service_of(request)
    paper = service.get(paper_id)
    if paper is None:
        raise ApiError(404, "not_found", translate("not_found", lang))
    state = SearchState(SearchParams(), lang)
    return render(request, "paper.html", lang, state=state, paper=paper, bibtex=to_bibtex([paper]),
                  back_to_search=search_back(params.back, lang))


@router.get("/topics", response_class=HTMLResponse)
def topics_page(request: Request, params: Annotated[PaperParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    service = service_of(request)
    tree = topic_tree(service, FacetParams().to_request())
    state = SearchState(SearchParams(), lang)
    return render(request, "topics.html", lang, state=state, tree=tree)


def install_web(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=WEB_DIR / "static"), name="static")
    app.include_router(router)
    from papersift.web.library_pages import router as library_router
    from papersift.web.people_pages import router as people_router

    app.include_router(people_router)
    from papersift.web.feeds import router as feeds_router

    app.include_router(feeds_router)
    app.include_router(library_router)
    from papersift.web.library_forms import router as library_forms_router

    app.include_router(library_forms_router)
    from papersift.web.saved_pages import router as saved_router

    app.include_router(saved_router)
    from papersift.web.status_page import router as status_router

    app.include_router(status_router)  # the operator's page, shown only on the server's machine
    if app.state.settings.accounts:  # log in, log out, sign up, the account page
        from papersift.web.account_pages import nav_link
        from papersift.web.account_pages import router as account_router

        app.include_router(account_router)
        app.state.page_hooks = PageHooks(nav_link=nav_link)
    else:  # the one sign-in of a browser with the write token
        from papersift.web.writer_pages import router as writer_router
        from papersift.web.writer_pages import sign_in_hint, writer_link

        app.include_router(writer_router)
        app.state.page_hooks = PageHooks(nav_link=writer_link, sign_in_hint=sign_in_hint)
    app.state.render_html_error = render_error
    from papersift.search.topic_coverage import CoverageMemo

    coverage = app.state.topic_coverage = CoverageMemo(app.state.settings.data_dir)  # the pages' "where topics come from"
    app.state.warm_steps = [*getattr(app.state, "warm_steps", []), ("page templates", compile_templates),
                            ("topic coverage", coverage)]

