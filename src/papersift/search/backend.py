"""The search backend: the small interface SearchService needs from a keyword engine.

A backend turns a ParsedQuery into ranked paper ids, a total, facet counts and highlights.
Two implement it: the embedded TantivyBackend (search/tantivy_backend.py), used by default,
and the Typesense cluster's (backends/typesense_backend.py). This module holds what they
share: the result type, the Protocol, how query fields are scored, and the highlight terms.

Semantics (shared by every backend):
- required nodes must all match, but plain words only as ParsedQuery.match says: all of
  them, or any (then scored by plain BM25 on `text`, like the reference BM25);
- excluded nodes must not match;
- filters: venues/areas/subareas/statuses match any listed value (case-insensitive),
  the year range is inclusive, and every listed author must be on the paper;
- facet counts are over all papers the query (filters included) matches; a query whose
  words are relaxed to "any" (ranked retrieval) matches its `depth` best papers only
  (default: offset + limit),
  so its total and facets describe those, as for semantic retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from papersift.index.analyzers import ENGLISH, query_word_terms
from papersift.record import Paper
from papersift.search.query import AnyOf, ParsedQuery, Words
from papersift.search.types import FacetValue, Sort

# Query-language words are scored by BM25 on `text` (title + abstract + keywords) plus a
# boosted BM25 on the title alone, so a title match counts more than the same match in
# the abstract. Natural text (any word may match: evaluation, fusion, the fallback) is
# plain BM25 on `text`, like the reference BM25. On natural text a title boost of 0 / 0.1
# / 0.3 / 1 / 2 gave SciFact dev nDCG@10 0.693 / 0.699 / 0.702 / 0.655 / 0.613 and
# known-item en MRR@10 0.521 / 0.506 / 0.478 / 0.438 / 0.310: long descriptions are
# better served without it, short typed queries want it.
FIELD_BOOSTS = {"text": 1.0, "title": 0.1, "abstract": 1.0, "keywords": 1.0}
DEFAULT_FIELDS = ("text", "title")  # the fields plain words are scored on (the Typesense backend follows)
AUTHOR_BOOST = 1.0
HIGHLIGHT_FIELDS = ("title", "abstract")
FILTER_FIELD_NAMES = {"venues": "venue", "areas": "area", "subareas": "subarea", "statuses": "status"}


@dataclass(frozen=True, slots=True)
class BackendResult:
    papers: list[Paper]  # the page of hits in rank order, when asked for (with_papers)
    scores: list[float]
    total: int
    facets: dict[str, list[FacetValue]] = field(default_factory=dict)
    ignored_query: bool = False  # the words had no searchable terms (only stop words)
    ids: list[str] | None = None  # the hits' ids when their records were not loaded

    @property
    def paper_ids(self) -> list[str]:
        return self.ids if self.ids is not None else [paper.id for paper in self.papers]


class SearchBackend(Protocol):
    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, with_papers: bool = False, candidate_ids: Sequence[str] | None = None,
               depth: int | None = None) -> BackendResult:
        """One page of hits. For "any" queries the best `depth` papers (default offset + limit)
        are the result set: ranked retrieval never walks every paper that has one word."""

    def highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]: ...

    def facet_values(self) -> dict[str, list[FacetValue]]: ...

    def document_count(self) -> int: ...


def query_terms(query: ParsedQuery) -> frozenset[str]:
    """The index terms of the query's positive words and phrases (what highlights mark)."""
    found: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, Words):
            found.update(query_word_terms(node.text, ENGLISH))
        elif isinstance(node, AnyOf):
            for option in node.options:
                visit(option)

    for node in query.required:
        visit(node)
    return frozenset(found)
