"""The page (论文检索 / Paper Search): server-rendered, works without JavaScript.

Paper text is always escaped by Jinja's autoescape; the only markup taken as is are the
service's highlight snippets, and only after checking they hold no tag but <mark>.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import jinja2
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup, escape
from pydantic import Field

from papersift.api.backend import (
    PaperNotFound,
    facets_beside_filters,
    request_lang,
    service_of,
    similar_response,
    topic_tree,
)
from papersift.api.errors import ApiError, shown_path
from papersift.api.library_routes import search_with_tags
from papersift.api.params import FacetParams, PaperParams, SearchParams, SimilarParams
from papersift.config import AUTHORS_SHOWN, MAX_PAGE
from papersift.export import to_bibtex
from papersift.i18n import (
    LANGS,
    Lang,
    error_message,
    error_title_key,
    negotiate_language,
    translate,
    translate_notice,
)
from papersift.search.display import clean_extraction_debris, known_words, page_count, term_glosses
from papersift.search.intent import Intent
from papersift.web.citation_meta import citation_meta_tags, coins_kev
from papersift.web.feeds import page_feeds
from papersift.web.library_forms import marks_context
from papersift.web.mathml import render_math
from papersift.web.saved_pages import LABELS as SAVED_LABELS
from papersift.web.saved_pages import form_context
from papersift.web.topic_names import topic_name
from papersift.web.urls import SearchState, author_path, export_path, paper_path, search_back

WEB_DIR = Path(__file__).parent
FACET_LIMIT = 12
_MARK_TAG = re.compile(r"</?mark>")

router = APIRouter(include_in_schema=False)
template_loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(WEB_DIR / "templates")])
templates = jinja2.Environment(
    loader=template_loader,
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
)


@dataclass(frozen=True)
class NavLink:
    path: str
    labels: dict[str, str]  # lang -> label


# The header's links; other pages (topic map, trends) add theirs with add_page().
NAV_LINKS: list[NavLink] = [NavLink("/topics", {lang: translate("topics", lang) for lang in LANGS}),
                            NavLink("/library", {"zh": "文献库", "en": "Library"}),
                            NavLink("/saved", {"zh": "已保存的检索", "en": "Saved searches"})]


def add_page(path: str, labels: dict[str, str], template_dir: Path | None = None) -> None:
    """Let another package's page share this look: a header link, and its templates found
    by name beside these (they can `{% extends "base.html" %}` and call render())."""
    NAV_LINKS.append(NavLink(path, labels))
    if template_dir is not None:
        template_loader.loaders = [*template_loader.loaders, jinja2.FileSystemLoader(template_dir)]


# The page being drawn: which words its service's keyword index knows (to rejoin "bidi- rected").
_known_words: ContextVar[Callable[[str], bool] | None] = ContextVar("known_words", default=None)


def cleaned(text: str | None) -> str:
    """Paper text without PDF-extraction debris (search/display.clean_extraction_debris)."""
    return clean_extraction_debris(text, _known_words.get()) if text else ""


def highlighted(snippet: str | None, plain: str | None) -> Markup:
    """The service's snippet if it is what it promises (escaped text + <mark>), else the
    escaped plain text; either without PDF-extraction debris."""
    if snippet and not re.search(r"[<>]", _MARK_TAG.sub("", snippet)):
        return render_math(cleaned(snippet))
    return render_math(str(escape(cleaned(plain))))


def paper_text(text: str | None) -> Markup:
    """A paper's text on its page: escaped, debris cleaned, its maths as MathML (web/mathml.py)."""
    return render_math(str(escape(cleaned(text))))


def safe_href(url: str | None) -> str | None:
    """Only http(s) links from paper data: a `javascript:` URL must never become a link."""
    if url and urlsplit(url).scheme.lower() in ("http", "https"):
        return url
    return None


templates.filters["safe_href"] = safe_href
templates.filters["cleaned"] = cleaned
templates.filters["paper_text"] = paper_text
templates.globals.update(highlighted=highlighted, AUTHORS_SHOWN=AUTHORS_SHOWN, paper_path=paper_path,
                         export_path=export_path, author_link=author_path, citation_meta_tags=citation_meta_tags,
                         coins_kev=coins_kev)


def render(request: Request, template: str, lang: Lang, status: int = 200, **context) -> HTMLResponse:
    def t(key: str, **values) -> str:
        return translate(key, lang, **values)

    def notice_text(notice: str) -> str:
        return translate_notice(notice, lang)

    def topic_label(label: str | None) -> str | None:  # area / subarea in the page's language
        return topic_name(label, lang)

    def paper_topic(paper) -> str | None:  # "Area · Subarea" in the page's language
        area, subarea = topic_label(paper.area), topic_label(paper.subarea)
        return f"{area} · {subarea}" if area and subarea else area

    from papersift.web.account_pages import nav_link
    from papersift.web.writer_pages import sign_in_hint, writer_link

    lang_urls = {code: _with_lang(request, code) for code in LANGS}
    _known_words.set(known_words(getattr(request.app.state.service, "term_doc_freq", None)))
    # with accounts: "Account (name)" or "Log in"; writes on without them: "Sign in" / "Signed in"
    account = nav_link(request) or writer_link(request)
    links = NAV_LINKS if account is None else [*NAV_LINKS, NavLink(*account)]
    html = templates.get_template(template).render(
        request_path=request.url.path, lang=lang, t=t, notice_text=notice_text, lang_urls=lang_urls, nav_links=links,
        topic_label=topic_label, paper_topic=paper_topic,
        sign_in_hint=sign_in_hint(request, lang) if status == 200 else None,
        feed_links=page_feeds(request) if status == 200 else [], site_url=str(request.base_url).rstrip("/"), **context,
    )
    return HTMLResponse(html, status_code=status)


def _with_lang(request: Request, lang: str) -> str:
    """This page in another language (the language is part of every URL); the home page when the
    path holds a capability (a private feed's token), which a page never echoes."""
    if shown_path(request.url.path) != request.url.path:
        return f"/?lang={lang}"
    url = request.url.include_query_params(lang=lang)
    return f"{url.path}?{url.query}"


def render_error(request: Request, status: int, message: str, code: str | None = None) -> HTMLResponse:
    lang = request.query_params.get("lang")
    lang = lang if lang in LANGS else negotiate_language(request.headers.get("accept-language"))
    return render(request, "error.html", lang, status=status, message=error_message(code, message, lang),
                  status_code=status, title_key=error_title_key(status))


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
    if app.state.settings.accounts:  # log in, log out, sign up, the account page
        from papersift.web.account_pages import router as account_router

        app.include_router(account_router)
    else:  # the one sign-in of a browser with the write token
        from papersift.web.writer_pages import router as writer_router

        app.include_router(writer_router)
    app.state.render_html_error = render_error
    app.state.warm_steps = [*getattr(app.state, "warm_steps", []), ("page templates", _compile_templates)]


def _compile_templates() -> None:
    """Compile every page template now (api/warmup.py: before the server says ready), not on the first visit."""
    for name in templates.list_templates(filter_func=lambda name: name.endswith(".html")):
        templates.get_template(name)
