"""The read-only JSON API: search, one paper, similar papers, facets, export."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from papersift.api.backend import (
    PaperNotFound,
    collect_result_papers,
    lookup_papers,
    request_lang,
    resolve_export_ids,
    service_of,
    similar_response,
)
from papersift.api.errors import ApiError
from papersift.api.library_routes import search_with_tags
from papersift.api.params import ExportParams, FacetParams, PaperParams, SearchParams, SimilarParams
from papersift.api.schemas import ErrorOut, FacetsOut, PaperOut, SearchOut, SimilarOut
from papersift.config import MAX_PAGE
from papersift.export import FILE_SUFFIXES, MEDIA_TYPES, export_papers
from papersift.search.display import facets_json, hit_json, paper_json, search_json

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "Malformed query"},
    404: {"model": ErrorOut, "description": "No such paper"},
    422: {"model": ErrorOut, "description": "Unknown parameter or value out of range"},
}
# `{paper_id:path}` in the routes: old-style arXiv ids hold a slash (arXiv-2001-cs/0101001),
# and a client's %2F reaches the router already decoded.
PaperId = Annotated[str, Path(min_length=1, max_length=300,
                              description="Paper id, e.g. ICLR-2024-abc123 or arXiv-2001-cs/0101001")]

router = APIRouter(prefix="/api", tags=["search"], responses=ERRORS)


@router.get("/search", response_model=SearchOut, summary="Search papers")
def search(request: Request, params: Annotated[SearchParams, Query()]) -> dict:
    """Hits (20 a page by default) with highlights, the total, and facet counts."""
    response = search_with_tags(request, service_of(request), params.to_request())
    return search_json(response, request_lang(request, params.lang), MAX_PAGE)


@router.get("/papers/{paper_id:path}/similar", response_model=SimilarOut, summary="Papers similar to one paper")
def similar(request: Request, paper_id: PaperId, params: Annotated[SimilarParams, Query()]) -> dict:
    try:
        response = similar_response(service_of(request), paper_id, params.size)
    except PaperNotFound as missing:
        raise ApiError(404, "not_found", f"no paper with id {missing.paper_id!r}") from None
    lang = request_lang(request, params.lang)
    return {"paper_id": paper_id, "hits": [hit_json(hit, lang) for hit in response.hits], "notices": response.notices}


@router.get("/papers/{paper_id:path}", response_model=PaperOut, summary="One paper")
def get_paper(request: Request, paper_id: PaperId, params: Annotated[PaperParams, Query()]) -> dict:
    paper = service_of(request).get(paper_id)
    if paper is None:
        raise ApiError(404, "not_found", f"no paper with id {paper_id!r}")
    return paper_json(paper)


@router.get("/facets", response_model=FacetsOut, summary="Facet counts and the area → subarea tree")
def facets(request: Request, params: Annotated[FacetParams, Query()]) -> dict:
    service = service_of(request)
    summary = service.facet_summary(params.to_request())
    return {"total": summary.total, "facets": facets_json(summary.facets), "topics": summary.tree}


@router.get(
    "/export",
    summary="Export papers as BibTeX, JSON, CSV, RIS or CSL-JSON",
    response_class=Response,
    responses={200: {"content": {"application/x-bibtex": {}, "text/csv": {}, "application/json": {},
                                 "application/x-research-info-systems": {}, "application/vnd.citationstyles.csl+json": {}}}},
)
def export(request: Request, params: Annotated[ExportParams, Query()]) -> Response:
    """Either the papers named by `ids`, or every result of the search (up to a cap)."""
    service = service_of(request)
    if params.ids:
        try:
            papers = lookup_papers(service, resolve_export_ids(service, params.ids))
        except PaperNotFound as missing:
            raise ApiError(404, "not_found", f"no paper with id {missing.paper_id!r}") from None
        except ValueError as problem:
            raise ApiError(422, "invalid_parameter", f"ids: {problem}", [{"param": "ids", "problem": str(problem)}]) from None
    else:
        papers = collect_result_papers(service, params.to_request())
    body = export_papers(papers, params.format)
    filename = f"papersift-export.{FILE_SUFFIXES[params.format]}"
    return Response(body, media_type=MEDIA_TYPES[params.format], headers={
        "Content-Disposition": f'inline; filename="{filename}"',
        "X-Exported-Count": str(len(papers)),
    })
