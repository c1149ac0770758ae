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
from papersift.i18n import Lang
from papersift.web.render import NAV_LINKS, add_page, render

TEMPLATES = Path(__file__).resolve().parents[1] / "topics" / "templates"
LABELS = {
    "zh": {"title": "主题地图", "intro": "每个点是一篇论文（嵌入向量的二维投影），颜色表示领域；浅色点的领域由模型预测。"
                                        "悬停查看标题，点击打开论文。",
           "filter": "按检索词高亮", "apply": "高亮", "clear_search": "清除", "trends": "各领域论文数（按年份）",
           "loading": "加载中…", "matches": "匹配", "predicted": "预测", "nav": "主题地图",
           "not_ready": "主题地图尚未生成；服务器在后台准备好后会显示在这里。"},
    "en": {"title": "Topic map", "intro": "Each dot is a paper (2-D projection of its embedding), colored by area; "
                                          "lighter dots have a predicted area. Hover for the title, click to open it.",
           "filter": "Highlight a search", "apply": "Highlight", "clear_search": "Clear",
           "trends": "Papers per area per year", "loading": "Loading…", "matches": "matches",
           "predicted": "predicted", "nav": "Topic map",
           "not_ready": "The topic map is not drawn yet; it appears here once the server has prepared it."},
}
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
        add_page("/topics/map", {lang: LABELS[lang]["nav"] for lang in LABELS}, TEMPLATES)


