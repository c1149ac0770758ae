"""SearchService: the one place that knows how to search. CLI, HTTP API and page call it.

    service = SearchService(data_dir)
    response = service.search(SearchRequest(query='"graph neural" venue:ICLR', mode="keyword"))

Modes. "keyword" is the lexical backend. "semantic" and "hybrid" come from retriever
plug-ins: a module named in RETRIEVER_MODULES that defines
`make_retriever(data_dir, keyword) -> Retriever | None` (None: its index is missing), `keyword`
being this service as search/retrieval.KeywordSide, the calls a retriever may make.
A retriever only ranks paper ids; this service applies the filters, counts facets,
pages, loads papers from the store and highlights, so every mode answers alike.
When no retriever is available for a mode, the service answers in keyword mode and
says so in SearchResponse.notices (the request's default mode is hybrid, so refusing
would break every default request).
"""

from __future__ import annotations

import heapq
import importlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from papersift.config import MAX_ENCODED_QUERY_CHARS, MAX_PAGE, MAX_PAGE_SIZE
from papersift.index.analyzers import has_cjk
from papersift.index.predictions import PredictionStore
from papersift.record import Paper
from papersift.search import facet_counts
from papersift.search.author_ids import AuthorPapers
from papersift.search.backend import BackendResult, SearchBackend
from papersift.search.cited import CITED_DEPTH, CitationCounts
from papersift.search.crosslingual import (
    also_searched,
    carried_over_query,
    is_description,
    phrase_query,
    read_query,
    term_glossary,
)
from papersift.search.facet_counts import Counter, FacetSummary
from papersift.search.intent import NAV_MAX_WORDS, NO_INTENT, PLAIN, Intent, IntentReader
from papersift.search.memo import Memo
from papersift.search.notices import Notice
from papersift.search.phrasebridge import PhraseBridge, phrase_bridge_for
from papersift.search.predicted_topics import attach_predicted_topics
from papersift.search.query import ParsedQuery, Words, merge_filters, natural_text_query, parse_query, query_text
from papersift.search.retrieval import KeywordSide, Retriever
from papersift.search.spelling import Speller
from papersift.search.stages import stage
from papersift.search.tantivy_backend import TantivyBackend
from papersift.search.termlexicon import QueryReading, TermLexicon, lexicon_for
from papersift.search.types import FacetValue, Filters, Hit, Mode, SearchRequest, SearchResponse, TotalCounts, hit_of
from papersift.search.zhnames import ChineseNames
from papersift.store import DB_FILE, Store
from papersift.throttle import RECHECK_S, Throttle

RETRIEVER_MODULES = {"semantic": "papersift.search.dense", "hybrid": "papersift.search.hybrid"}
RELAXED_DEPTH = 200  # when no paper has all the words: the best this many by BM25 are the results
RETRIEVER_RECHECK_S = 5.0  # how often a mode without an index looks for one again
RETRIEVER_DEPTH = 1000  # candidates a retriever returns; filters and paging apply to these
READINGS_KEPT = 256  # Chinese query texts whose English readings are remembered (reading_of)
NO_FILTERS = Filters()
CARRIED_OVER = ("carried_over", "carried_over_also")  # the notices that say what a Chinese query was searched as


@dataclass(frozen=True, slots=True)
class _Found:
    """One page of a request's ranking, before papers are loaded and highlighted."""

    query: ParsedQuery  # as answered: carried over or relaxed when the typed query found nothing
    ids: list[str]
    scores: list[float]
    papers: list[Paper] | None  # loaded with the ids (keyword mode), else None
    total: int
    facets: dict[str, list[FacetValue]]
    keyword_matches: int | None = None  # semantic/hybrid: papers with all the query's words
    total_counts: TotalCounts = "matches"
    retriever: object | None = None  # the one that ranked (semantic, hybrid): its reading is shown


@dataclass(frozen=True, slots=True)
class _SetCounts:
    total: int
    facets: dict[str, list[FacetValue]]
    members: set[str]  # head papers that the keyword tail also holds
    probe: _Found | None  # the tail's first page (its query, total, facets)


ID_KINDS = {"arxiv": "arXiv", "doi": "DOI", "openreview": "OpenReview", "url": "URL"}


def _summed_facets(first: dict[str, list[FacetValue]], second: dict[str, list[FacetValue]]) -> dict[str, list[FacetValue]]:
    """Facet counts of two disjoint sets of papers, added up (most papers first)."""
    summed: dict[str, list[FacetValue]] = {}
    for name in dict.fromkeys([*first, *second]):
        counts: dict[str, int] = {}
        for item in (*first.get(name, []), *second.get(name, [])):
            counts[item.value] = counts.get(item.value, 0) + item.count
        ordered = (sorted(counts.items(), reverse=True) if name == "year"  # as search/facets.py lists them
                   else sorted(counts.items(), key=lambda item: (-item[1], item[0])))
        summed[name] = [FacetValue(value, count) for value, count in ordered]
    return summed


class SearchService:
    def __init__(self, data_dir: str | Path, backend: SearchBackend | None = None):
        self.data_dir = Path(data_dir)
        self._store: Store | None = None
        self._predictions: PredictionStore | None = None
        self.backend: SearchBackend = backend or TantivyBackend(self.data_dir)
        if isinstance(self.backend, TantivyBackend) and self.backend.author_papers is None:
            self.backend.author_papers = AuthorPapers(self.data_dir)
        self._retrievers: dict[str, Retriever | None] = {}
        self._retriever_lock = threading.Lock()
        self._checked_at: dict[str, float] = {}  # mode -> when a missing retriever was last looked for
        self._citations = CitationCounts()
        self._names: ChineseNames | None = None
        self._readings: Memo[QueryReading | None] = Memo(READINGS_KEPT)
        self._reading_resources: tuple[TermLexicon | None, PhraseBridge | None] | None = None
        self._resources_recheck = Throttle(RECHECK_S)
        self.speller = Speller(self.data_dir)
        self.intents = IntentReader(self.data_dir, self._doc_freq, self.speller.uses)

    @property
    def store(self) -> Store:
        """Opened on first use: ranking an evaluation corpus needs only the index."""
        if self._store is None:
            self._store = Store(self.data_dir, readonly=True)
        return self._store

    # -- the core API ----------------------------------------------------------------
    def search(self, request: SearchRequest) -> SearchResponse:
        """Raises QuerySyntaxError for a query the language rejects."""
        started = time.perf_counter()
        notices: list[str] = []
        request = self._within_limits(request, notices)
        offset = (request.page - 1) * request.size
        resolved, intent = self._resolved(request, notices)
        found = self._find(resolved, notices, offset, request.size, with_papers=True, pinned=intent.pinned)
        if found.papers is None:  # retrieved: the page's records from the same row store as keyword hits
            page = self._page_records(found.ids, found.scores)
        else:
            page = list(zip(found.papers, found.scores))
        took_ms = (time.perf_counter() - started) * 1000
        reading = None if request.literal else self._shown_reading(found.query, found.retriever, notices)
        if found.total == 0 and request.query.strip() and intent.kind != "unknown_id":
            notices.append(Notice("no_match"))
        return SearchResponse(request, found.total, self._hits(found.query, page), found.facets, took_ms, notices,
                              total_counts=found.total_counts, keyword_matches=found.keyword_matches, reading=reading,
                              intent=intent if intent not in (NO_INTENT, PLAIN) else None,
                              suggestion=intent.corrected)

    def ranking(self, request: SearchRequest, k: int,
                candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The first k (paper id, score) pairs that search() lists for this request over its
        pages (the request's page and size aside), without loading papers or highlighting:
        what `papersift eval` measures, so that it ranks as the API and the page do.
        `candidate_ids` restricts the ranking to a pool (evaluation with --pools). Unlike
        search(), a mode without a retriever is an error: a benchmark must not silently
        measure another mode. Raises QuerySyntaxError for a query the language rejects."""
        notices: list[str] = []
        resolved, intent = self._resolved(request, [])
        found = self._find(replace(resolved, with_facets=False), notices, 0, k, with_papers=False,
                           candidate_ids=candidate_ids, pinned=intent.pinned)
        unavailable = [notice for notice in notices if getattr(notice, "code", None) == "mode_unavailable"]
        if unavailable:
            raise RuntimeError(unavailable[0])
        return list(zip(found.ids, found.scores))

    def counter(self, request: SearchRequest) -> Counter:
        """Counts (total, facets) of the request's result set under filters that narrow the
        request's own (search/facet_counts.py), as search() counts it. Keyword mode: the query's
        matches under them. Semantic and hybrid modes: the ranked head is retrieved here once
        (the query embedded once) and each count is the head's papers that pass the filters
        plus, in hybrid mode, the keyword matches under them (_set_counts); no model call."""
        request, intent = self._resolved(request, [])
        query = self._parsed(request)
        retriever = self._retriever_for(request, []) if self._needs_retriever(request, query) else None
        carried: dict[str, QueryReading | None] = {}  # the query's English reading, worked out once
        head = [] if retriever is None else [paper_id for paper_id, _ in retriever.retrieve(request, query, RETRIEVER_DEPTH)]
        head = list(dict.fromkeys([*intent.pinned, *head]))
        answered: ParsedQuery | None = None  # the keyword side's query as answered for the request's filters
        if retriever is None or request.mode != "semantic":
            probe = self._keyword_tail(request, query, None, carried)(0, 1, False)
            if probe.query.match_all:
                answered = probe.query
            else:  # the best papers for some of the words: one list, counted under each filter
                whole = self._keyword_tail(request, query, None, carried)(0, max(probe.total, 1), False)
                head = list(dict.fromkeys([*head, *whole.ids]))

        def count(filters: Filters) -> tuple[int, dict[str, list[FacetValue]]]:
            # `filters` narrow the request as the caller sent it: what the query's words named applies too
            counted = replace(request, filters=merge_filters(filters, intent.filters), with_facets=True)
            counted_query = self._parsed(counted)
            # Narrower filters narrow the same keyword set: no fallback to fewer words under them.
            tail = None if answered is None else self._query_tail(replace(answered, filters=counted_query.filters))
            passing = self._passing(counted_query, head, with_facets=False).paper_ids if head else []
            order = {paper_id: at for at, paper_id in enumerate(head)}
            passing.sort(key=order.__getitem__)
            counts = self._set_counts(counted_query, passing, tail, with_facets=True)
            return counts.total, counts.facets
        return count

    def facets_beside_filters(self, response: SearchResponse) -> SearchResponse:
        """The response with each filtered facet group counted as if its own filter were off."""
        return replace(response, facets=facet_counts.beside_filters(self.counter, response.request, response.facets))

    def facet_summary(self, request: SearchRequest) -> FacetSummary:
        """Total, facet counts and the area -> subarea tree of a request (/api/facets, /topics)."""
        return facet_counts.summary(self.counter, request)

    def get(self, paper_id: str) -> Paper | None:
        return self.store.get(paper_id)

    @property
    def term_doc_freq(self) -> Callable[[str], int] | None:
        """Papers per analyzed term, when the backend can count them (the embedded index can;
        a Typesense cluster cannot): which dictionary senses papers use (search/crosslingual.py)."""
        return getattr(self.backend, "term_doc_freq", None)

    def facet_values(self) -> dict[str, list[FacetValue]]:
        """All values of venue, year, area, subarea and status with their paper counts."""
        return self.backend.facet_values()

    def rank(self, text: str, k: int = 100, candidate_ids: Sequence[str] | None = None,
             mode: Mode = "keyword", like: str | None = None) -> list[tuple[str, float]]:
        """Rank papers for natural text (no operators; any word may match), best first.

        For fusion and the lexical benchmark (`papersift eval` ranks with ranking(), as the API
        does). `candidate_ids` restricts the ranking to a pool;
        `like` ranks similar papers instead (semantic and hybrid modes): "text" to the text as
        pasted text, "paper" to the stored paper whose id `text` is.
        Unlike search(), a mode without a retriever is an error here: a benchmark
        must not silently measure another mode.
        """
        if like not in (None, "text", "paper"):
            raise ValueError(f"like must be 'text' or 'paper', not {like!r}")
        if like and mode == "keyword":
            raise ValueError("ranking similar papers needs the semantic or hybrid mode")
        query = natural_text_query("" if like else text)
        if mode == "keyword":
            result = self.backend.search(query, "relevance", 0, k, with_facets=False, candidate_ids=candidate_ids)
            return list(zip(result.paper_ids, result.scores))
        notices: list[str] = []
        request = SearchRequest(query="" if like else text, mode=mode, like_text=text if like == "text" else None,
                                like_id=text if like == "paper" else None)
        retriever = self._retriever_for(request, notices)
        if retriever is None:
            raise RuntimeError(notices[0])
        if candidate_ids is None:
            return retriever.retrieve(request, query, k)
        return retriever.retrieve(request, query, k, candidate_ids=candidate_ids)

    def register_retriever(self, mode: str, retriever: Retriever | None) -> None:
        self._retrievers[mode] = retriever
        self._checked_at[mode] = float("inf")  # chosen by the caller: never looked for again

    # -- internals -------------------------------------------------------------------
    @staticmethod
    def _within_limits(request: SearchRequest, notices: list[str]) -> SearchRequest:
        if request.page < 1 or request.size < 1:
            raise ValueError(f"page and size must be at least 1 (got page {request.page}, size {request.size})")
        if request.size > MAX_PAGE_SIZE:
            notices.append(Notice("page_size_capped", limit=MAX_PAGE_SIZE))
            request = replace(request, size=MAX_PAGE_SIZE)
        if request.page > MAX_PAGE:
            notices.append(Notice("page_capped", limit=MAX_PAGE))
            request = replace(request, page=MAX_PAGE)
        return request

    @staticmethod
    def _parsed(request: SearchRequest) -> ParsedQuery:
        with stage("query"):
            query = parse_query(request.query)
            return query.with_filters(request.filters) if request.filters != NO_FILTERS else query

    @staticmethod
    def _needs_retriever(request: SearchRequest, query: ParsedQuery) -> bool:
        return bool(query.has_text or request.like_text or request.like_id)  # filters alone: keyword browse

    def _resolved(self, request: SearchRequest, notices: list[str]) -> tuple[SearchRequest, Intent]:
        """The request as its query's intent reads it (search/intent.py): an id's paper, a
        person's papers, venue/year words as filters, misspelt words corrected (every
        mode searches the correction; the response names it and the words as typed); and
        what the response says about it."""
        if request.literal or request.like_text or request.like_id or not request.query.strip():
            return request, NO_INTENT
        intent = self.intents.read(request.query)
        if intent is NO_INTENT:
            return request, intent
        text = request.query if intent.text is None else intent.text
        if intent.plain and text and len(text.split()) <= NAV_MAX_WORDS:  # a description's rare words stay
            corrected = self.speller.suggest(text)
            if corrected is not None:  # every mode searches the correction (a typo is a word < 3 papers use)
                intent = replace(intent, corrected=corrected, text=corrected)
                notices.append(Notice("spelling_corrected", corrected=corrected, typed=text))
                text = corrected
        if intent.kind == "paper_id":
            notices.append(Notice("id_match", paper_id=intent.matched_id))
        elif intent.kind == "unknown_id" and intent.unknown is not None:
            kind, value = intent.unknown
            notices.append(Notice("unknown_id", kind=ID_KINDS.get(kind, kind), value=value, command=intent.fetch_command))
        if intent.person is not None:
            notices.append(Notice("person_match", name=intent.person.name, papers=len(intent.person.paper_ids)))
        if intent.filter_words:
            notices.append(Notice("filter_words", words=" ".join(intent.filter_words)))
        if intent is PLAIN:
            return request, intent
        return replace(request, query=text, filters=merge_filters(request.filters, intent.filters)), intent

    def _doc_freq(self, term: str) -> int:
        counted = self.term_doc_freq
        return counted(term) if counted is not None else 0

    def _find(self, request: SearchRequest, notices: list[str], offset: int, limit: int, with_papers: bool,
              candidate_ids: Sequence[str] | None = None, pinned: Sequence[str] = ()) -> _Found:
        """Papers offset..offset+limit of the request's ranking (the one path search() and
        ranking() share), with the total and, when the request asks, the facets.

        The result set: keyword mode, the papers that match the query; semantic mode, the
        retrieved papers above the model's relevance floor; hybrid mode, both: the fused head
        first, then the keyword matches it lacks, so paging and export reach every paper
        that has all the words. `pinned` papers (a title the query is) come first."""
        if request.sort == "cited":
            return self._most_cited(request, notices, offset, limit, candidate_ids, pinned)
        query = self._parsed(request)
        retriever = self._retriever_for(request, notices) if self._needs_retriever(request, query) else None
        if retriever is None and self._literal_chinese(request, query):
            # "search as typed" (按原文检索): the papers are English, so the Chinese words are
            # searched by meaning, the multilingual embedding of the text with no reading
            retriever = self._retriever_for(replace(request, mode="semantic"), [])
            if retriever is not None:
                request = replace(request, mode="semantic")
        head: list[tuple[str, float]] = []
        if retriever is not None:
            notices.extend(getattr(retriever, "notices", list)())  # e.g. semantic coverage while embedding
            if not (request.like_id or request.like_text) and len(query_text(query)) > MAX_ENCODED_QUERY_CHARS:
                notices.append(Notice("query_shortened", limit=MAX_ENCODED_QUERY_CHARS))
            if candidate_ids is None:
                ranked = retriever.retrieve(request, query, RETRIEVER_DEPTH)
            else:
                ranked = retriever.retrieve(request, query, RETRIEVER_DEPTH, candidate_ids=candidate_ids)
            kept = set(self._passing(query, [paper_id for paper_id, _ in ranked], with_facets=False).paper_ids)
            head = [(paper_id, score) for paper_id, score in ranked if paper_id in kept]
        if pinned:
            first = self._passing(query, list(pinned), with_facets=False).paper_ids
            first.sort(key=list(pinned).index)
            head = [(paper_id, float("inf")) for paper_id in first] + [item for item in head if item[0] not in first]
        if retriever is None and not head:
            return self._keyword(request, query, notices, offset, limit, with_papers, candidate_ids)
        tail = None if retriever is not None and request.mode == "semantic" else \
            self._keyword_tail(request, query, candidate_ids, self._ranked_reading(request, query, retriever))
        return self._combined(request, query, head, tail, offset, limit, retriever)

    @staticmethod
    def _ranked_reading(request: SearchRequest, query: ParsedQuery, retriever) -> dict[str, QueryReading | None]:
        """The reading a retriever ranked a Chinese description with (hybrid reads it without
        phrase neighbours, semantic.py reading_for), for the page's keyword side to search as
        well: one reading a page, the one the page shows. Empty for anything else (a term's
        keyword side reads it as keyword mode does)."""
        text = query_text(query)
        reading_for = getattr(retriever, "reading_for", None)
        if (reading_for is None or request.literal or not has_cjk(text) or not is_description(text)
                or len(text) > MAX_ENCODED_QUERY_CHARS):  # the retriever read only the text's start
            return {}
        return {text: reading_for(text)}

    def _keyword_tail(self, request: SearchRequest, query: ParsedQuery, candidate_ids: Sequence[str] | None,
                      carried: dict[str, QueryReading | None]) -> Callable[[int, int, bool], _Found]:
        """The keyword side of a result set: (offset, limit, with_facets) -> that page of the
        query's keyword answer (its matches; carried over or relaxed as keyword mode does)."""
        def tail(offset: int, limit: int, with_facets: bool) -> _Found:
            return self._keyword(replace(request, with_facets=with_facets), query, [], offset, limit, False,
                                 candidate_ids, carried)
        return tail

    def _query_tail(self, query: ParsedQuery) -> Callable[[int, int, bool], _Found]:
        """A keyword side that is exactly this query's matches (no fallback)."""
        def tail(offset: int, limit: int, with_facets: bool) -> _Found:
            result = self.backend.search(query, "relevance", offset, limit, with_facets=with_facets)
            return _Found(query, result.paper_ids, result.scores, None, result.total, result.facets)
        return tail

    def _set_counts(self, query: ParsedQuery, head_ids: list[str],
                    tail: Callable[[int, int, bool], _Found] | None, with_facets: bool) -> _SetCounts:
        """Total and facets of a result set: the head's papers (already passing the filters)
        and the tail's keyword matches, each paper counted once."""
        probe = tail(0, 1, with_facets) if tail is not None else None
        members: set[str] = set()
        if tail is not None and probe is not None and head_ids:
            if probe.query.match_all:  # a set the query names: ask which head papers are in it
                members = set(self.backend.search(probe.query, "relevance", 0, len(head_ids), with_facets=False,
                                                  candidate_ids=head_ids).paper_ids)
            else:  # a ranked (relaxed) keyword answer: its best papers are the set
                members = set(tail(0, max(probe.total, 1), False).ids) & set(head_ids)
        extra = [paper_id for paper_id in head_ids if paper_id not in members]
        facets: dict[str, list[FacetValue]] = probe.facets if probe is not None else {}
        if with_facets and extra:
            extra_facets = self._passing(ParsedQuery(), extra, with_facets=True).facets
            facets = _summed_facets(facets, extra_facets) if probe is not None else extra_facets
        total = len(extra) + (probe.total if probe is not None else 0)
        return _SetCounts(total, facets, members, probe)

    def _combined(self, request: SearchRequest, query: ParsedQuery, head: list[tuple[str, float]],
                  tail: Callable[[int, int, bool], _Found] | None, offset: int, limit: int,
                  retriever: Retriever | None) -> _Found:
        """One page of head + tail (see _find), with the set's total and facets."""
        head_ids = [paper_id for paper_id, _ in head]
        scores = dict(head)
        counts = self._set_counts(query, head_ids, tail, request.with_facets)
        wanted = offset + limit
        if request.sort == "relevance":
            ordered = head_ids
            if tail is not None and wanted > len(head_ids):
                rest = tail(0, wanted - len(head_ids) + len(counts.members), False)
                scores.update(zip(rest.ids, rest.scores))
                shown = set(head_ids)
                ordered = head_ids + [paper_id for paper_id in rest.ids if paper_id not in shown]
        else:
            years = {paper_id: paper.year or 0 for paper_id, paper in self.store.get_many(head_ids).items()}
            newest = request.sort == "newest"
            by_year = sorted(head_ids, key=lambda paper_id: years.get(paper_id, 0), reverse=newest)
            ordered = by_year
            if tail is not None:
                rest = tail(0, wanted + len(counts.members), False)
                scores.update(zip(rest.ids, rest.scores))
                shown = set(head_ids)
                rest_ids = [paper_id for paper_id in rest.ids if paper_id not in shown]
                years.update({paper_id: paper.year or 0 for paper_id, paper in self.store.get_many(rest_ids).items()})
                ordered = list(heapq.merge(by_year, rest_ids, key=lambda paper_id: years.get(paper_id, 0),
                                           reverse=newest))
        page_ids = ordered[offset:wanted]
        probe = counts.probe
        answered = probe.query if probe is not None and not head_ids else query
        matches = probe.total if probe is not None and probe.query.match_all and query.has_text else None
        return _Found(answered, page_ids, [scores.get(paper_id, 0.0) for paper_id in page_ids], None, counts.total,
                      counts.facets, matches if retriever is not None else None,
                      "ranked" if retriever is not None else "matches", retriever)

    def _most_cited(self, request: SearchRequest, notices: list[str], offset: int, limit: int,
                    candidate_ids: Sequence[str] | None, pinned: Sequence[str] = ()) -> _Found:
        """The request's matches in relevance order, then put in citation order (search.cited)."""
        found = self._find(replace(request, sort="relevance"), notices, 0, CITED_DEPTH, False, candidate_ids, pinned)
        scores = dict(zip(found.ids, found.scores))
        page_ids = self._citations.order(self.store, found.ids)[offset:offset + limit]
        return replace(found, ids=page_ids, scores=[scores[paper_id] for paper_id in page_ids], papers=None)

    def _keyword(self, request: SearchRequest, query: ParsedQuery, notices: list[str], offset: int, limit: int,
                 with_papers: bool, candidate_ids: Sequence[str] | None,
                 carried_english: dict[str, QueryReading | None] | None = None) -> _Found:
        sort = request.sort if query.has_text or request.sort != "relevance" else "newest"

        def run(parsed: ParsedQuery, depth: int | None = None) -> BackendResult:
            return self.backend.search(parsed, sort, offset, limit, with_facets=request.with_facets,
                                       with_papers=with_papers, candidate_ids=candidate_ids, depth=depth)

        if self._no_chinese_papers(request, query):  # the query as typed would match nothing: its reading
            carried = self._carried_over(request, query, run, notices, carried_english)
            if carried is not None:
                query, result = carried
                return _Found(query, result.paper_ids, result.scores, result.papers if with_papers else None,
                              result.total, result.facets)
        result = run(query)
        if result.ignored_query:
            notices.append(Notice("common_words_only"))
        elif result.total == 0 and query.has_text:
            # Chinese words no (English) paper has go over to English before any word is dropped:
            # "bandit 遗憾" is after bandit regret papers, not every bandit paper.
            carried = self._carried_over(request, query, run, notices, carried_english)
            if carried is not None:
                query, result = carried
            if result.total == 0 and query.match_all:
                relaxed = run(query.relaxed(), RELAXED_DEPTH)
                if relaxed.total:
                    notices.append(Notice("relaxed_match", total=relaxed.total))
                    query, result = query.relaxed(), relaxed
        papers = result.papers if with_papers else None
        return _Found(query, result.paper_ids, result.scores, papers, result.total, result.facets)

    def _carried_over(self, request: SearchRequest, query: ParsedQuery, run: Callable[..., BackendResult],
                      notices: list[str], known: dict[str, QueryReading | None] | None = None) -> tuple[ParsedQuery, BackendResult] | None:
        """A query with Chinese words that no paper has all of, carried over to English by the
        dictionary (keyword mode loads no model; Latin words are kept) and ranked like a relaxed
        query; None when there is nothing to carry over or it matches no paper either.
        `known`: readings already worked out in this request (text -> reading)."""
        text = query_text(query)
        known = {} if known is None else known
        if text not in known:
            known[text] = None if request.literal else self.reading_of(text)
        reading = known[text]
        if reading is None or not (reading.searched or reading.authors):
            return None
        # Searched as the phrases papers write (crosslingual.phrase_query), else like its English
        # twin (all words), ranked by any word when none has all.
        phrased = phrase_query(query, reading, self.term_lexicon, self.phrase_papers, self.term_doc_freq)

        def attempts() -> Iterator[tuple[ParsedQuery, int | None]]:  # each made once the one before found nothing
            if phrased is not None:
                yield phrased, None
            for match, depth in (("all", None), ("any", RELAXED_DEPTH)):
                yield carried_over_query(query, reading.searched, match, reading.authors), depth
        for carried, depth in attempts():
            translated = run(carried, depth)
            if translated.total:
                also = also_searched(carried) if carried is phrased else []  # other spellings, a guess's alternatives
                # what was searched as one could type it: the words, then each person named as an author filter
                searched = " ".join([reading.searched, *(f'author:"{name}"' for name in reading.authors)]).strip()
                notices.append(Notice("carried_over_also", english=searched, also="; ".join(also),
                                      total=translated.total, reading=reading) if also else
                               Notice("carried_over", english=searched, total=translated.total, reading=reading))
                return carried, translated
        return None

    # -- the English reading of a Chinese query (search/crosslingual.py) -------------------
    def _no_chinese_papers(self, request: SearchRequest, query: ParsedQuery) -> bool:
        """A Chinese query over papers none of which has Chinese text (the term lexicon counted
        them): searching it as typed would load jieba (~2 s) only to match nothing."""
        if request.literal or not query.has_text or not has_cjk(query_text(query)):
            return False
        lexicon = self.term_lexicon
        return lexicon is not None and lexicon.chinese_papers == 0

    @staticmethod
    def _literal_chinese(request: SearchRequest, query: ParsedQuery) -> bool:
        """A keyword request to search Chinese words as typed (literal): searched by meaning."""
        return request.literal and request.mode == "keyword" and query.has_text and has_cjk(query_text(query))

    def reading_of(self, text: str, encoder=None, bridge=None, neighbours: bool = True) -> QueryReading | None:
        """The query's English reading: the term lexicon's phrases, and for what it cannot
        read, the term bridge (when given) or the dictionary senses papers use. None for a
        text without CJK (before looking for the lexicon and the phrase vectors).
        `neighbours=False`: without the phrase neighbours (hybrid's reading of a description,
        semantic.py reading_for). Remembered per text and resources."""
        if not has_cjk(text):
            return None
        with stage("reading"):
            lexicon, phrases = self._resources()
            phrases = phrases if neighbours else None
            return self._readings.get((text, lexicon, phrases, encoder, bridge), lambda: read_query(
                text, lexicon, encoder, bridge, self.term_doc_freq, phrases, term_glossary(), self.chinese_names))

    @property
    def term_lexicon(self) -> TermLexicon | None:
        """The data dir's term lexicon (None before `papersift index` wrote one): its phrase table
        says which spellings papers use (search/compounds.py)."""
        return self._resources()[0]

    def _resources(self) -> tuple[TermLexicon | None, PhraseBridge | None]:
        """The data dir's term lexicon and phrase bridge, looked for again every RECHECK_S seconds
        (`index` and `embed` replace them), as the store and the vocabulary are: each look is a
        stat, a pointer file read and paths built, ~0.15 ms of a Chinese page's ~4 ms."""
        resources = self._reading_resources
        if resources is None or self._resources_recheck.due():
            resources = self._reading_resources = (lexicon_for(self.data_dir), phrase_bridge_for(self.data_dir))
        return resources

    def phrase_papers(self, text: str) -> int:
        """Papers with `text` as a phrase (search/compounds.py gap_spellings); counted by the
        backend directly when it can (the embedded index: TantivyBackend.phrase_count)."""
        counted = getattr(self.backend, "phrase_count", None)
        if counted is not None:
            return counted(text)
        return self.backend.search(ParsedQuery((Words(text, phrase=True),)), "relevance", 0, 1, with_facets=False).total

    @property
    def chinese_names(self) -> ChineseNames:
        """Chinese names read as the author spellings of this data dir (search/zhnames.py)."""
        if self._names is None:
            self._names = ChineseNames(self.data_dir)
        return self._names

    def _shown_reading(self, query: ParsedQuery, retriever, notices: list[str]) -> QueryReading | None:
        """What the response says was searched: the keyword carry-over's reading, or the one a
        retriever ranked with (hybrid, semantic)."""
        for notice in notices:
            if isinstance(notice, Notice) and notice.code in CARRIED_OVER:
                return notice.values["reading"]
        reading_for = getattr(retriever, "reading_for", None)
        return reading_for(query_text(query)) if reading_for is not None and query.has_text else None

    def _passing(self, query: ParsedQuery, candidate_ids: list[str], with_facets: bool) -> BackendResult:
        """Which candidates pass the query's filters and exclusions (and their facets)."""
        allowed = ParsedQuery(excluded=query.excluded, filters=query.filters)
        return self.backend.search(allowed, "relevance", 0, max(len(candidate_ids), 1), with_facets=with_facets,
                                   candidate_ids=candidate_ids)

    def _page_records(self, ids: list[str], scores: list[float]) -> list[tuple[Paper, float]]:
        """A ranked page's records, read where keyword hits' are (the index's row store), so a
        page shows the same version of a paper whatever the mode. Ranked ids have passed the
        keyword index's filters (`_passing`), so every one of them is there."""
        if not ids:
            return []
        found = self.backend.search(ParsedQuery(), "relevance", 0, len(ids), with_facets=False, with_papers=True,
                                    candidate_ids=ids)
        by_id = {paper.id: paper for paper in found.papers}
        return [(by_id[paper_id], score) for paper_id, score in zip(ids, scores) if paper_id in by_id]

    def _hits(self, query: ParsedQuery, ranked: list[tuple[Paper, float]]) -> list[Hit]:
        highlights = self.backend.highlight(query, [paper for paper, _ in ranked])
        hits = [hit_of(paper, score, marked) for (paper, score), marked in zip(ranked, highlights)]
        predictions = self._prediction_store()
        return hits if predictions is None else attach_predicted_topics(hits, predictions)

    def _prediction_store(self) -> PredictionStore | None:
        """Predicted topics for hits without a source one (None: no store here, e.g. an eval corpus)."""
        if self._predictions is None and (self.data_dir / DB_FILE).exists():
            self._predictions = PredictionStore(self.data_dir, readonly=True)
        return self._predictions

    def _retriever_for(self, request: SearchRequest, notices: list[str]) -> Retriever | None:
        mode = request.mode
        if mode == "keyword":
            return None
        with self._retriever_lock:
            stale = self._retrievers.get(mode) is None and time.monotonic() - self._checked_at.get(mode, -1e9) > RETRIEVER_RECHECK_S
            if mode not in self._retrievers or stale:
                # A missing index is looked for again now and then: a server started before
                # `papersift embed` published its first vectors picks them up without a restart.
                self._retrievers[mode] = self._load_retriever(mode)
                self._checked_at[mode] = time.monotonic()
        retriever = self._retrievers[mode]
        if retriever is None:
            notices.append(Notice("mode_unavailable", mode=mode))
        return retriever

    def _load_retriever(self, mode: str) -> Retriever | None:
        module_name = RETRIEVER_MODULES.get(mode)
        if module_name is None:
            raise ValueError(f"unknown search mode {mode!r}; use keyword, semantic or hybrid")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            return None
        keyword: KeywordSide = self  # all a retriever may call (mypy checks the service provides it)
        return module.make_retriever(self.data_dir, keyword)

