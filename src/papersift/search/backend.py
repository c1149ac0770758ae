"""The search backend: the small interface the service needs, and its tantivy implementation.

A backend turns a ParsedQuery into ranked paper ids, a total, facet counts and
highlights. The embedded TantivyBackend is the one used today; a clustered engine
(issue 6) can implement the same Protocol.

Semantics (shared by every backend):
- required nodes must all match (plain words only "any of" when match_all is False);
- excluded nodes must not match;
- filters: venues/areas/subareas/statuses match any listed value (case-insensitive),
  the year range is inclusive, and every listed author must be on the paper;
- facet counts are over all papers the query (filters included) matches.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import tantivy

from papersift.index.analyzers import ENGLISH, NAMES, positioned_terms, terms
from papersift.index.lexical import (
    FACET_KEY_FIELDS, FACET_SEPARATOR, META_FILE, POINTER_FILE, index_root, open_index, paper_from_payload,
)
from papersift.record import Paper
from papersift.search.highlight import Highlighter
from papersift.search.query import AnyOf, FieldValue, ParsedQuery, Words
from papersift.search.types import FACET_FIELDS, FacetValue, Filters, Sort

# Words are scored by BM25 on `text` (title + abstract + keywords, like the reference
# BM25 over the concatenation) plus a boosted BM25 on the title alone, so a title match
# counts more than the same match in the abstract. Measured on the dev sets (eval README
# section): title boost 0 / 0.1 / 0.3 / 1 / 2 gives SciFact nDCG@10 0.693 / 0.699 / 0.702
# / 0.655 / 0.613 and known-item en MRR@10 0.521 / 0.506 / 0.478 / 0.438 / 0.310.
FIELD_BOOSTS = {"text": 1.0, "title": 0.1, "abstract": 1.0, "keywords": 1.0}
DEFAULT_FIELDS = ("text", "title")
AUTHOR_BOOST = 1.0
HIGHLIGHT_FIELDS = ("title", "abstract")
FACET_BUCKETS = 65_000  # distinct facet-value combinations (215 in the shared corpus)
REFRESH_EVERY_S = 1.0
FILTER_FIELD_NAMES = {"venues": "venue", "areas": "area", "subareas": "subarea", "statuses": "status"}


@dataclass(frozen=True, slots=True)
class BackendResult:
    papers: list[Paper]  # the page of hits, in rank order
    scores: list[float]
    total: int
    facets: dict[str, list[FacetValue]] = field(default_factory=dict)
    ignored_query: bool = False  # the words had no searchable terms (only stop words)

    @property
    def paper_ids(self) -> list[str]:
        return [paper.id for paper in self.papers]


class SearchBackend(Protocol):
    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, candidate_ids: Sequence[str] | None = None,
               require_abstract: bool = False) -> BackendResult: ...

    def highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]: ...

    def facet_values(self) -> dict[str, list[FacetValue]]: ...

    def document_count(self) -> int: ...


class TantivyBackend:
    """Searches the data dir's lexical index; reopens it when a new build is swapped in."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self._index: tantivy.Index | None = None
        self._searcher: tantivy.Searcher | None = None
        self._stamp: tuple = ()
        self._checked_at = 0.0
        self._all_facets: dict[str, list[FacetValue]] | None = None
        self._open()

    # -- index lifecycle -------------------------------------------------------------
    def _stamp_now(self) -> tuple:
        root = index_root(self.data_dir)
        pointer = root / POINTER_FILE
        try:
            generation = pointer.read_text().strip()
            return generation, os.stat(root / generation / META_FILE).st_mtime_ns
        except FileNotFoundError:
            return ()

    def _open(self) -> None:
        index, _ = open_index(self.data_dir)
        self._index, self._schema = index, index.schema
        self._searcher = index.searcher()
        self._stamp = self._stamp_now()
        self._all_facets = None

    def refresh(self, force: bool = False) -> None:
        """Pick up a swapped-in build or an update (checked at most once a second)."""
        now = time.monotonic()
        if not force and now - self._checked_at < REFRESH_EVERY_S:
            return
        with self._lock:
            self._checked_at = now
            stamp = self._stamp_now()
            if stamp and stamp != self._stamp:
                if self._stamp and stamp[0] == self._stamp[0]:
                    self._index.reload()
                    self._searcher = self._index.searcher()
                    self._stamp, self._all_facets = stamp, None
                else:
                    self._open()

    @property
    def searcher(self) -> tantivy.Searcher:
        self.refresh()
        return self._searcher

    def document_count(self) -> int:
        return self.searcher.num_docs

    # -- queries ---------------------------------------------------------------------
    def _term(self, field_name: str, term: str) -> tantivy.Query:
        return tantivy.Query.term_query(self._schema, field_name, term)

    def _field_match(self, field_name: str, positioned: list[tuple[int, str]]) -> tantivy.Query:
        if len(positioned) == 1:
            return self._term(field_name, positioned[0][1])
        first = positioned[0][0]
        return tantivy.Query.phrase_query(self._schema, field_name, [(pos - first, term) for pos, term in positioned])

    def _words(self, words: Words) -> tantivy.Query | None:
        positioned = positioned_terms(words.text, ENGLISH)
        field_names = (words.field,) if words.field else DEFAULT_FIELDS
        clauses = []
        if positioned:
            for name in field_names:
                match = self._field_match(name, positioned)
                boost = FIELD_BOOSTS[name]
                clauses.append(match if boost == 1.0 else tantivy.Query.boost_query(match, boost))
        if positioned and words.field is None and not words.phrase:
            names = positioned_terms(words.text, NAMES)
            if len(names) == 1:  # a single plain word may be an author's name
                author = self._term("authors", names[0][1])
                clauses.append(author if AUTHOR_BOOST == 1.0 else tantivy.Query.boost_query(author, AUTHOR_BOOST))
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else _should(clauses)

    def _author(self, name: str) -> tantivy.Query | None:
        positioned = positioned_terms(name, NAMES)
        return self._field_match("authors", positioned) if positioned else None

    def _node(self, node) -> tantivy.Query | None:
        if isinstance(node, Words):
            return self._words(node)
        if isinstance(node, FieldValue):
            if node.field == "authors":
                return self._author(node.value)
            return self._term(FILTER_FIELD_NAMES[node.field], node.value.lower())
        options = [query for query in (self._node(option) for option in node.options) if query is not None]
        return _should(options) if options else None

    def _filter_clauses(self, filters: Filters) -> list[tantivy.Query]:
        clauses = []
        for filter_name, field_name in FILTER_FIELD_NAMES.items():
            values = getattr(filters, filter_name)
            if values:
                lowered = sorted({value.lower() for value in values})
                clauses.append(tantivy.Query.term_set_query(self._schema, field_name, lowered))
        if filters.year_from is not None or filters.year_to is not None:
            clauses.append(tantivy.Query.range_query(
                self._schema, "year", tantivy.FieldType.Integer, filters.year_from, filters.year_to))
        for author in filters.authors:
            query = self._author(author)
            clauses.append(query if query is not None else tantivy.Query.empty_query())
        return clauses

    def compile(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None,
                require_abstract: bool = False) -> tuple[tantivy.Query, bool]:
        """(tantivy query, whether typed words were all dropped as unsearchable)."""
        must: list[tantivy.Query] = []
        any_words: list[tantivy.Query] = []
        dropped = 0
        for node in query.required:
            compiled = self._node(node)
            if compiled is None:
                dropped += 1
            elif not query.match_all and isinstance(node, Words):
                any_words.append(compiled)
            else:
                must.append(compiled)
        if any_words:
            must.append(any_words[0] if len(any_words) == 1 else _should(any_words))
        ignored = bool(query.required) and dropped == len(query.required)
        filters = self._filter_clauses(query.filters)
        if candidate_ids is not None:
            filters.append(tantivy.Query.term_set_query(self._schema, "id", list(candidate_ids)))
        if require_abstract:
            filters.append(self._term("has_abstract", 1))
        clauses = [(tantivy.Occur.Must, clause) for clause in must]
        clauses += [(tantivy.Occur.Must, tantivy.Query.const_score_query(clause, 0.0)) for clause in filters]
        for node in query.excluded:
            compiled = self._node(node)
            if compiled is not None:
                clauses.append((tantivy.Occur.MustNot, compiled))
        if ignored:
            return tantivy.Query.empty_query(), True
        if not any(occur == tantivy.Occur.Must for occur, _ in clauses):
            clauses.append((tantivy.Occur.Must, tantivy.Query.all_query()))
        if len(clauses) == 1:
            return clauses[0][1], False
        return tantivy.Query.boolean_query(clauses), False

    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, candidate_ids: Sequence[str] | None = None,
               require_abstract: bool = False) -> BackendResult:
        searcher = self.searcher
        compiled, ignored = self.compile(query, candidate_ids, require_abstract)
        # The facet pass counts every match, so the top-k pass need not count them again.
        count = not with_facets
        if sort == "relevance":
            result = searcher.search(compiled, limit, count=count, offset=offset)
        else:
            order = tantivy.Order.Desc if sort == "newest" else tantivy.Order.Asc
            result = searcher.search(compiled, limit, count=count, offset=offset, order_by_field="year", order=order)
        papers = [paper_from_payload(searcher.doc(address)["paper"][0]) for _, address in result.hits]
        scores = [float(score) if sort == "relevance" else 0.0 for score, _ in result.hits]
        if with_facets:
            total, facets = self._facets(searcher, compiled)
        else:
            total, facets = result.count, {}
        return BackendResult(papers, scores, total, facets, ignored)

    # -- facets ----------------------------------------------------------------------
    def _facets(self, searcher: tantivy.Searcher, compiled: tantivy.Query) -> tuple[int, dict[str, list[FacetValue]]]:
        """(total matches, counts per facet value) from one terms aggregation on facet_key."""
        aggregation = {"keys": {"terms": {"field": "facet_key", "size": FACET_BUCKETS}}}
        buckets = searcher.aggregate(compiled, aggregation)["keys"]["buckets"]
        counts: dict[str, dict[str, int]] = {name: {} for name in FACET_KEY_FIELDS}
        total = 0
        for bucket in buckets:
            doc_count = bucket["doc_count"]
            total += doc_count
            for name, value in zip(FACET_KEY_FIELDS, bucket["key"].split(FACET_SEPARATOR)):
                if value:
                    per_value = counts[name]
                    per_value[value] = per_value.get(value, 0) + doc_count
        facets = {}
        for name in FACET_FIELDS:
            if name == "year":
                ordered = sorted(counts[name].items(), key=lambda item: item[0], reverse=True)
            else:
                ordered = sorted(counts[name].items(), key=lambda item: (-item[1], item[0]))
            facets[name] = [FacetValue(value, count) for value, count in ordered]
        return total, facets


    def facet_values(self) -> dict[str, list[FacetValue]]:
        """Every value of every facet field over the whole index (cached per index version)."""
        searcher = self.searcher
        if self._all_facets is None:
            self._all_facets = self._facets(searcher, tantivy.Query.all_query())[1]
        return self._all_facets

    # -- highlights ------------------------------------------------------------------
    def highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]:
        """Title and abstract of each paper, HTML-escaped, with the query's words marked."""
        highlight = Highlighter(query_terms(query))
        return [{name: highlight(getattr(paper, name)) for name in HIGHLIGHT_FIELDS} for paper in papers]


def query_terms(query: ParsedQuery) -> frozenset[str]:
    """The index terms of the query's positive words and phrases (what highlights mark)."""
    found: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, Words):
            found.update(terms(node.text, ENGLISH))
        elif isinstance(node, AnyOf):
            for option in node.options:
                visit(option)

    for node in query.required:
        visit(node)
    return frozenset(found)


def _should(queries: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, query) for query in queries])
