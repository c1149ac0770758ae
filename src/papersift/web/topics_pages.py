"""The topic map page (`/topics/map`) and the stored trends chart: the HTML side of the
topics JSON API (api/topics_routes.py), mounted with the page when the topics extra is there."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, Response

from papersift.api.backend import request_lang
from papersift.api.errors import ApiError
from papersift.config import MAX_QUERY_CHARS
from papersift.i18n import Lang, in_every_lang, page_labels
from papersift.web.render import NAV_LINKS, add_page, render

TEMPLATES = Path(__file__).resolve().parents[1] / "topics" / "templates"
LABELS = page_labels("topics_map")  # i18n.MESSAGES "topics_map.<name>"
router = APIRouter(include_in_schema=False)


@router.get("/topics/map", response_class=HTMLResponse)
def topic_map_page(request: Request, lang: Annotated[Lang | None, Query()] = None,
                   q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)] = "") -> HTMLResponse:
    chosen = request_lang(request, lang)
    return render(request, "topics_map_page.html", chosen, labels=LABELS[chosen], query=q)


@router.get("/topics/trends.svg")
def topic_trends_svg(request: Request) -> Response:
    """The trends chart as `papersift topics map` stored it (409 naming it until then)."""
    from papersift.topics.files import stored_trends_path  # not topics.plots nor predict: no matplotlib, sklearn

    try:
        chart = stored_trends_path(request.app.state.settings.data_dir).read_bytes()
    except FileNotFoundError:
        raise ApiError(409, "trends_not_computed", "the trends chart is not drawn yet; run 'papersift topics map'") from None
    return Response(chart, media_type="image/svg+xml")


def install(app: FastAPI) -> None:
    """The topic map page and the trends chart, with the page's header link and templates."""
    app.include_router(router)
    if not any(link.path == "/topics/map" for link in NAV_LINKS):
        add_page("/topics/map", in_every_lang("topics_map.nav"), TEMPLATES)


