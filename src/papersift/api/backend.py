"""How the HTTP layer asks the search service: the few compositions the routes and the
page share (similar papers, facets, the topic tree, whole-result export)."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from fastapi import Request

from papersift.config import MAX_PAGE_SIZE
from papersift.i18n import Lang, negotiate_language
from papersift.record import Paper
from papersift.search.backend import SearchBackend
from papersift.search.facet_counts import FacetSummary
from papersift.search.notices import Notice
from papersift.search.types import Hit, SearchRequest, SearchResponse

EXPORT_MAX_RESULTS = 5000


class ServiceProtocol(Protocol):
    """What the app needs from papersift.search.service.SearchService (not to be confused with
    search.backend.SearchBackend, the keyword engine beneath the service)."""

    @property
    def backend(self) -> SearchBackend: ...  # the keyword engine: filters as paper ids (tag:, recommendations)

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def get(self, paper_id: str) -> Paper | None: ...

    def rank(self, text: str, k: int = 100) -> list[tuple[str, float]]: ...

    def facets_beside_filters(self, response: SearchResponse) -> SearchResponse: ...

    def facet_summary(self, request: SearchRequest) -> FacetSummary: ...


class PaperNotFound(LookupError):
    def __init__(self, paper_id: str):
        super().__init__(paper_id)
        self.paper_id = paper_id


def service_of(request: Request) -> ServiceProtocol:
    return request.app.state.service


def request_lang(request: Request, explicit: Lang | None) -> Lang:
    """?lang= wins, then the browser's Accept-Language."""
    return explicit or negotiate_language(request.headers.get("accept-language"))


def similar_response(service: ServiceProtocol, paper_id: str, size: int) -> SearchResponse:
    """Papers like this one: the service's semantic neighbours when its vector index can
    answer, else lexical "more like this" (the paper's title and abstract as the query)."""
    paper = service.get(paper_id)
    if paper is None:
        raise PaperNotFound(paper_id)
    request = SearchRequest(like_id=paper.id, mode="hybrid", size=size + 1, with_facets=False)
    response = service.search(request)
    if _semantic_answered(response):
        hits, notices = response.hits, list(response.notices)
    else:
        ranked = service.rank(f"{paper.title}\n{paper.abstract or ''}", k=size + 1)
        hits = [Hit(found, score) for found_id, score in ranked if (found := service.get(found_id)) is not None]
        notices = [Notice("similar_by_words")]
    hits = [hit for hit in hits if hit.paper.id != paper.id][:size]
    return SearchResponse(replace(request, size=size), len(hits), hits, notices=notices)


def _semantic_answered(response: SearchResponse) -> bool:
    # Without a retriever the service answers like_id with a keyword browse and says so in
    # a notice (known by its code, not its wording); with a retriever but no vector index yet
    # it finds nothing.
    unavailable = any(getattr(notice, "code", None) == "mode_unavailable" for notice in response.notices)
    return bool(response.hits) and not unavailable


def facets_beside_filters(service: ServiceProtocol, response: SearchResponse) -> SearchResponse:
    """Counts for each filtered facet as if its own filter were off, so the sidebar still
    offers the other venues, years or statuses (search/facet_counts.py: one retrieval)."""
    return service.facets_beside_filters(response)


def topic_tree(service: ServiceProtocol, request: SearchRequest) -> list[dict]:
    """[{area, count, subareas: [{value, count}]}], by count (search/facet_counts.py)."""
    return service.facet_summary(request).tree


def resolve_export_ids(service: ServiceProtocol, values: list[str]) -> list[str]:
    """The ids an export names: each `ids=` value is one id when a paper has it (ids may hold
    commas), else a comma-separated list (the older form); duplicates dropped, order kept."""
    from papersift.api.params import MAX_EXPORT_IDS

    paper_ids: list[str] = []
    for value in values:
        if "," not in value or service.get(value) is not None:
            paper_ids.append(value)
        else:
            paper_ids.extend(part.strip() for part in value.split(",") if part.strip())
    if len(paper_ids) > MAX_EXPORT_IDS:
        raise ValueError(f"at most {MAX_EXPORT_IDS} ids per export, got {len(paper_ids)}")
    return list(dict.fromkeys(paper_ids))


def lookup_papers(service: ServiceProtocol, paper_ids: list[str]) -> list[Paper]:
    papers = []
    for paper_id in paper_ids:
        paper = service.get(paper_id)
        if paper is None:
            raise PaperNotFound(paper_id)
        papers.append(paper)
    return papers


def collect_result_papers(service: ServiceProtocol, request: SearchRequest, limit: int = EXPORT_MAX_RESULTS) -> list[Paper]:
    """Every result of a search, page by page, up to `limit` papers."""
    papers: list[Paper] = []
    page = 1
    while len(papers) < limit:
        response = service.search(replace(request, page=page, size=MAX_PAGE_SIZE, with_facets=False))
        papers.extend(hit.paper for hit in response.hits)
        if not response.hits or len(papers) >= response.total:
            break
        page += 1
    return papers[:limit]
