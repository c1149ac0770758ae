"""Facet counts beside the filters and the area -> subarea tree, from one retrieval a request.

The sidebar lists, for a facet group the request filters on, the counts as if that group's own
filter were off (values of one group combine with OR), and the topic tree lists each area's
papers and, within it, its subareas'. Both need counts under other filters than the request's.
They used to be one whole search per filtered group and one per area: in semantic and hybrid
modes each re-ran the retrieval and embedded the query again (a 1,000-character Chinese query
on /api/facets?mode=hybrid took 2-3 s, five at once 9-12 s each).

Now they come from a `counter` (SearchService.counter): made for a request whose filters are
at most those every count narrows, it answers (total, facets) for any narrower filters. In
keyword mode each count is the query's matches under those filters, as before. In semantic and
hybrid modes the counter retrieves the request's candidate list once and each count is the
papers of that list that pass the filters. The counts are those of before wherever the list is
the same: the sidebar when one facet group is filtered, the tree's areas. Where it is not (two
or more filtered groups; the subareas of an area), they now count the one list the request
retrieved, so that an area's subareas add up to at most its count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from papersift.search.types import FacetValue, Filters, SearchRequest

Facets = dict[str, list[FacetValue]]
Counter = Callable[[Filters], tuple[int, Facets]]
TOPIC_TREE_MAX_AREAS = 60

# Facet name -> the Filters fields that filter on it.
FACET_FILTERS = {
    "venue": ("venues",), "year": ("year_from", "year_to"), "area": ("areas",),
    "subarea": ("subareas",), "status": ("statuses",), "code": ("has_code",),
    "institution": ("institutions",),
}
_CLEARED = {"year_from": None, "year_to": None, "has_code": False}  # else an empty tuple
SINGLE_VALUED = frozenset({"venue", "year", "area", "subarea", "status"})  # one value a paper


@dataclass(frozen=True, slots=True)
class FacetSummary:
    total: int
    facets: Facets
    tree: list[dict]  # [{area, count, subareas: [{value, count}]}], by count


def without(filters: Filters, *names: str) -> Filters:
    """The filters with those facet groups' own filters cleared."""
    cleared: dict[str, Any] = {field: _CLEARED.get(field, ()) for name in names for field in FACET_FILTERS[name]}
    return replace(filters, **cleared)


def filtered_groups(filters: Filters) -> list[str]:
    """The facet groups the sidebar counts beside their filter: those filtered (subareas only
    inside one area, where they are listed)."""
    groups = [name for name in FACET_FILTERS if without(filters, name) != filters]
    return [name for name in groups if name != "subarea" or len(filters.areas) == 1]


def beside_filters(counter_for: Callable[[SearchRequest], Counter], request: SearchRequest, facets: Facets) -> Facets:
    """`facets` with each filtered group counted as if its own filter were off (one counter,
    made for the request without the filters of those groups)."""
    groups = filtered_groups(request.filters)
    if not groups:
        return facets
    count = counter_for(replace(request, filters=without(request.filters, *groups)))
    counted = dict(facets)
    for name in groups:
        # A single-valued group's chosen values count what choosing them lists (the request's own
        # facets): in semantic and hybrid modes a filtered retrieval ranks the filtered papers to its
        # full depth, deeper than the unfiltered list reaches; the other values count the unfiltered
        # list's papers. (A paper has several institutions: the request's own institution counts are
        # its papers' other institutions too, so that group is counted as its filter were off.)
        chosen = {value.value: value.count for value in facets.get(name, [])} if name in SINGLE_VALUED else {}
        beside = [FacetValue(value.value, chosen.pop(value.value, value.count))
                  for value in count(without(request.filters, name))[1].get(name, [])]
        beside += [FacetValue(value, papers) for value, papers in chosen.items()]
        counted[name] = beside if name == "year" else sorted(beside, key=lambda value: -value.count)
    return counted


def summary(counter_for: Callable[[SearchRequest], Counter], request: SearchRequest) -> FacetSummary:
    """Total, facets and topic tree: one counter for the request (and, when it filters on
    areas, one more without that filter, which each area's subareas are counted past)."""
    count = counter_for(request)
    total, facets = count(request.filters)
    tree_count = count if not request.filters.areas else counter_for(
        replace(request, filters=without(request.filters, "area")))
    tree = []
    for area in facets.get("area", [])[:TOPIC_TREE_MAX_AREAS]:
        subareas = tree_count(replace(request.filters, areas=(area.value,)))[1].get("subarea", [])
        tree.append({"area": area.value, "count": area.count,
                     "subareas": [{"value": sub.value, "count": sub.count} for sub in subareas]})
    return FacetSummary(total, facets, tree)
