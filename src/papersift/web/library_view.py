"""What every library page draws with: its labels (zh, en) and render() with the library's
state and labels. The library pages (web/library_pages.py) and the library's forms
(web/library_forms.py: the import summary) both use it; neither imports the other for it."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from papersift.api.params import SearchParams
from papersift.i18n import Lang, page_labels
from papersift.web.render import render
from papersift.web.urls import SearchState

LABELS = page_labels("library")  # i18n.MESSAGES "library.<name>"


def render_library(request: Request, template: str, lang: Lang, **context) -> HTMLResponse:
    return render(request, template, lang, state=SearchState(SearchParams(), lang), labels=LABELS[lang], **context)

