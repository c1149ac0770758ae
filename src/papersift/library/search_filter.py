"""`tag:NAME` in the query language: search inside one's own library.

The search layer parses `tag:NAME` into Filters.tags but cannot read a library (it sits below
it); the interface that knows the request's user calls `with_tag_papers` first, which turns
the tags into the set of paper ids they hold (Filters.paper_ids). Every mode filters by that
set like by any other filter. A tag the library does not have matches no paper and says so in
a notice: an empty result, never an error.
"""

from __future__ import annotations

from dataclasses import replace

from papersift.library.entries import Library, LibraryError
from papersift.search.notices import Notice
from papersift.search.query import ParsedQuery, parse_query
from papersift.search.types import Filters, QuerySyntaxError, SearchRequest


def query_tags(query: str) -> tuple[str, ...]:
    """The tag: values of a query (none when it has no 'tag:' or does not parse: the search then
    reports the syntax error itself)."""
    if "tag:" not in query.lower():
        return ()
    try:
        return parse_query(query).filters.tags
    except QuerySyntaxError:
        return ()


def with_tag_papers(library: Library, request: SearchRequest) -> tuple[SearchRequest, list[Notice]]:
    """The request with its tags' papers as the paper-id filter, and a notice per unknown tag."""
    tags = tuple(dict.fromkeys(request.filters.tags + query_tags(request.query)))
    if not tags:
        return request, []
    paper_ids: set[str] = set()
    notices: list[Notice] = []
    for tag in tags:
        try:
            found = library.tagged(tag)
        except LibraryError:
            found = []
        if not found:
            notices.append(Notice("unknown_tag", tag=tag))
        paper_ids.update(found)
    return replace(request, filters=replace(request.filters, paper_ids=frozenset(paper_ids))), notices


def filtered_paper_ids(backend, filters: Filters) -> set[str] | None:
    """The papers passing search filters (venue, year, area...), found by the search's keyword
    backend (the very filter code of a search), for recommendations' candidates; None: no filter."""
    if filters.is_empty():
        return None
    probe = ParsedQuery(filters=filters)
    total = backend.search(probe, "relevance", 0, 1, with_facets=False).total
    return set(backend.search(probe, "relevance", 0, total, with_facets=False).paper_ids) if total else set()
