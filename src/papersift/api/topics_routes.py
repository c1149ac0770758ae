"""Topic map and trends: JSON under /api/topics, and the interactive page at /topics/map.

The map JSON holds every embedded paper's 2-D position, area (source label, else the
prediction), title and id, as parallel arrays (compact for 34K+ points). With `q`, the
papers matching that search (through the search service) come back as `matches`, so the
page can dim the rest.

Serving only reads: the projection is computed by `papersift topics map` (409 naming that
command until it has run), and what is derived here (rows, payloads) is
kept in memory, computed once however many requests ask for it at the same time. The
trends chart is drawn by the same command (matplotlib, ~1.5 s) and served as stored.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from papersift.api.backend import EXPORT_MAX_RESULTS, collect_result_papers, service_of
from papersift.api.errors import ApiError
from papersift.api.routes import ERRORS as SEARCH_ERRORS
from papersift.api.schemas import ErrorOut, TopicMapOut, TopicTrendsOut
from papersift.config import MAX_QUERY_CHARS
from papersift.index.predictions import PredictionStore
from papersift.search.types import QuerySyntaxError, SearchRequest
from papersift.topics.files import EmbeddingsUnavailable
from papersift.topics.overview import TopicRow, area_colors, area_order, counts_by, topic_rows
from papersift.topics.projection import MapNotComputed, stored_map_points

MAP_METHODS = Literal["auto", "pca", "umap"]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: SEARCH_ERRORS[400],
    409: {"model": ErrorOut, "description": "No map yet: run 'papersift embed', then 'papersift topics map'"},
    422: SEARCH_ERRORS[422],
}
api_router = APIRouter(prefix="/api/topics", tags=["topics"], responses=ERRORS)
_cache_lock = threading.Lock()
_cache: dict[tuple, object] = {}
_computing: dict[tuple, threading.Lock] = {}  # one lock per key being computed: single flight


def _data_dir(request: Request) -> Path:
    return request.app.state.settings.data_dir


def _rows_key(data_dir: Path) -> tuple:
    from papersift.store import Store

    store = Store(data_dir, readonly=True)
    try:
        max_seq, count = store.max_seq(), store.count()
    finally:
        store.close()
    with PredictionStore(data_dir, readonly=True) as predictions:
        meta = predictions.meta()
    return (str(data_dir), max_seq, count, meta.get("model_version"), meta.get("last_seq"))


def _cached(key: tuple, compute):
    """The value for `key`, computed once: concurrent requests for the same key wait for the
    first one's result instead of each computing it."""
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        key_lock = _computing.setdefault(key, threading.Lock())
    with key_lock:
        with _cache_lock:
            if key in _cache:
                return _cache[key]
        value = compute()
        with _cache_lock:
            if len(_cache) > 16:
                _cache.clear()
            _cache[key] = value
            _computing.pop(key, None)
    return value


def _rows(data_dir: Path) -> list[TopicRow]:
    return _cached(("rows", *_rows_key(data_dir)), lambda: topic_rows(data_dir))


def map_payload(data_dir: Path, method: str) -> dict:
    try:
        points = stored_map_points(data_dir, method)
    except EmbeddingsUnavailable as exc:
        raise ApiError(409, "no_embeddings", str(exc)) from None
    except MapNotComputed as exc:
        raise ApiError(409, "map_not_computed", str(exc)) from None
    rows_key = _rows_key(data_dir)
    method = points.method

    def build() -> dict:
        rows = {row.paper_id: row for row in _rows(data_dir)}
        kept = [i for i, paper_id in enumerate(points.paper_ids) if paper_id in rows]
        kept_rows = [rows[points.paper_ids[i]] for i in kept]
        areas = area_order(kept_rows)
        area_index = {area: position for position, area in enumerate(areas)}
        return {
            "method": method,
            "stale": points.stale,
            "count": len(kept),
            "areas": areas,
            "colors": [area_colors(areas)[area] for area in areas],
            "ids": [row.paper_id for row in kept_rows],
            "titles": [row.title for row in kept_rows],
            "x": [round(float(points.xy[i, 0]), 4) for i in kept],
            "y": [round(float(points.xy[i, 1]), 4) for i in kept],
            "area": [area_index[row.area] for row in kept_rows],
            "predicted": [int(row.predicted) for row in kept_rows],
        }

    return _cached(("map", method, points.source, points.stale, *rows_key), build)


def matching_ids(request: Request, query: str) -> list[str]:
    search = SearchRequest(query=query, mode="keyword", with_facets=False)
    try:
        papers = collect_result_papers(service_of(request), search, limit=EXPORT_MAX_RESULTS)
    except QuerySyntaxError as exc:
        raise ApiError(400, "bad_query", str(exc)) from None
    return [paper.id for paper in papers]


@api_router.get("/map", response_model=TopicMapOut, response_model_exclude_none=True, summary="Topic map points")
def topic_map(
    request: Request,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="Search whose matches to mark.")] = "",
    method: Annotated[MAP_METHODS, Query(
        description="Projection: auto = UMAP when 'papersift topics map' stored it, else PCA.")] = "auto",
) -> dict:
    """Every embedded paper: 2-D position, area index, predicted flag, title, id (parallel arrays)."""
    payload = dict(map_payload(_data_dir(request), method))
    if q.strip():
        matched = set(matching_ids(request, q))
        payload["query"] = q
        payload["matches"] = [position for position, paper_id in enumerate(payload["ids"]) if paper_id in matched]
    return payload


@api_router.get("/trends", response_model=TopicTrendsOut, summary="Papers per area per year and venue")
def topic_trends(request: Request) -> dict:
    """Papers per area per year and per venue (source labels, else predicted)."""
    rows = _rows(_data_dir(request))
    by_year, by_venue = counts_by(rows, "year"), counts_by(rows, "venue")
    areas = area_order(rows)
    return {
        "areas": areas,
        "by_year": {area: {str(year): n for year, n in by_year.get(area, {}).items()} for area in areas},
        "by_venue": {area: by_venue.get(area, {}) for area in areas},
        "predicted": sum(row.predicted for row in rows),
        "papers": len(rows),
    }


router = api_router  # what the app includes; the pages are web/topics_pages.py
