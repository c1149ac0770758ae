"""The page machinery every HTML page shares: the Jinja environment and its filters, the
header's links, and render() / render_error(). Page modules (web/*_pages.py) import it; it
imports none of them (what the sign-in pages add to every page comes in through PageHooks)."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup, escape

from papersift.api.errors import shown_path
from papersift.config import AUTHORS_SHOWN
from papersift.i18n import (
    LANGS,
    Lang,
    error_message,
    error_title_key,
    in_every_lang,
    negotiate_language,
    translate,
    translate_notice,
)
from papersift.index.debris import clean_extraction_debris, known_words
from papersift.search.topic_coverage import CoverageMemo, TopicCoverage
from papersift.web.citation_meta import citation_meta_tags, coins_kev
from papersift.web.feeds import page_feeds
from papersift.web.mathml import render_math
from papersift.web.topic_names import topic_name
from papersift.web.urls import author_path, export_path, paper_path

NavTarget = tuple[str, dict[str, str]]  # (path, lang -> label)


@dataclass(frozen=True)
class PageHooks:
    """What the mounted sign-in pages add to every page: the header's account or sign-in link,
    and the one-line sign-in hint above a page's forms."""

    nav_link: Callable[[Request], NavTarget | None] = lambda request: None
    sign_in_hint: Callable[[Request, Lang], tuple[str, str] | None] = lambda request, lang: None


NO_HOOKS = PageHooks()

WEB_DIR = Path(__file__).parent
_MARK_TAG = re.compile(r"</?mark>")

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
NAV_LINKS: list[NavLink] = [NavLink("/topics", in_every_lang("topics")), NavLink("/library", in_every_lang("library.library")),
                            NavLink("/saved", in_every_lang("saved.saved"))]


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

    lang_urls = {code: _with_lang(request, code) for code in LANGS}
    _known_words.set(known_words(getattr(request.app.state.service, "term_doc_freq", None)))
    # with accounts: "Account (name)" or "Log in"; writes on without them: "Sign in" / "Signed in"
    # (the sign-in pages mounted by web/routes.install_web hand these in: PageHooks)
    hooks: PageHooks = getattr(request.app.state, "page_hooks", NO_HOOKS)
    account = hooks.nav_link(request)
    links = NAV_LINKS if account is None else [*NAV_LINKS, NavLink(*account)]
    html = templates.get_template(template).render(
        request_path=request.url.path, lang=lang, t=t, notice_text=notice_text, lang_urls=lang_urls, nav_links=links,
        topic_label=topic_label, paper_topic=paper_topic, topic_coverage=lambda: topic_coverage(request),
        sign_in_hint=hooks.sign_in_hint(request, lang) if status == 200 else None,
        feed_links=page_feeds(request) if status == 200 else [], site_url=str(request.base_url).rstrip("/"), **context,
    )
    return HTMLResponse(html, status_code=status)


def topic_coverage(request: Request) -> TopicCoverage | None:
    """Which papers have a source's topic and which a predicted one (search/topic_coverage.py,
    read once per keyword-index generation), for the pages that say so: the memo install_web keeps."""
    memo: CoverageMemo | None = getattr(request.app.state, "topic_coverage", None)
    return memo() if memo is not None else None


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


def compile_templates() -> None:
    """Compile every page template now (api/warmup.py: before the server says ready), not on the first visit."""
    for name in templates.list_templates(filter_func=lambda name: name.endswith(".html")):
        templates.get_template(name)
