"""The embedded keyword engine: search/backend.py's SearchBackend over the data dir's tantivy
index (index/lexical.py), reopened when a new build is swapped in."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import cast

import tantivy

from papersift.index.analyzers import ENGLISH, NAMES, QUERY_WORDS_KEPT, positioned_terms, query_word_terms
from papersift.index.debris import cleaned_texts, known_words
from papersift.index.documents import paper_institutions, read_institution_names
from papersift.index.facetkeys import FACET_CODE_FIELDS, HAS_CODE
from papersift.index.lexical import index_root, open_index
from papersift.index.publish import current_name
from papersift.index.rows import RowReader
from papersift.record import Paper
from papersift.search.backend import (
    AUTHOR_BOOST,
    FIELD_BOOSTS,
    FILTER_FIELD_NAMES,
    HIGHLIGHT_FIELDS,
    BackendResult,
    query_terms,
)
from papersift.search.facets import FacetTable, bucket_counts
from papersift.search.highlight import Highlighter
from papersift.search.query import AnyOf, FieldValue, ParsedQuery, Words
from papersift.search.stages import stage
from papersift.search.types import INSTITUTION_FACET, FacetValue, Filters, Sort
from papersift.throttle import Throttle

MAX_MARKED_TERMS = 8
FACET_BUCKETS = 65_000  # distinct keys per facet group (~130 and ~85 in the shared corpus)
# Institutions are many (~10,000 spellings in the shared corpus) and several per paper: the
# facet lists the most frequent ones among the matches.
INSTITUTION_FACET_SIZE = 50
FACET_AGGREGATION = {name: {"terms": {"field": name, "size": FACET_BUCKETS}} for name in FACET_CODE_FIELDS}
# A generation that names no institution has no institution codes: its pages skip that terms
# aggregation (~6 us of the ~80 us aggregation; `papersift bench lexical`'s corpus names none).
CODE_AGGREGATION = dict(FACET_AGGREGATION)
FACET_AGGREGATION[INSTITUTION_FACET] = {"terms": {"field": "institution_code", "size": INSTITUTION_FACET_SIZE}}
REFRESH_EVERY_S = 1.0
_EMPTY = tantivy.Query.empty_query()


@dataclass(frozen=True, slots=True)
class Plan:
    """A compiled query: `scored` ranks; `matching` matches the same papers without the
    clauses that only add to scores (title boosts), so counts and facets skip them."""

    scored: tantivy.Query
    matching: tantivy.Query
    ignored: bool  # the words had no searchable terms (only stop words): nothing matches


class TantivyBackend:
    """Searches the data dir's lexical index; reopens it when a new build is swapped in."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self._refresh_due = Throttle(REFRESH_EVERY_S)
        # name -> (is an author id, paper ids) | None: `author:` through identities (search.author_ids)
        self.author_papers: Callable[[str], tuple[bool, tuple[str, ...]] | None] | None = None
        self._open()

    # -- index lifecycle -------------------------------------------------------------
    def _stamp_now(self) -> str | None:
        """The live generation's name: a published generation never changes (index/publish.py),
        so a new name is the only news."""
        return current_name(index_root(self.data_dir))

    def _open(self) -> None:
        opened = open_index(self.data_dir)
        self._schema = opened.index.schema
        self._live = _Live(opened.index, opened.index.searcher(), opened.rows, opened.folder.name, keep=opened,
                           institution_names=read_institution_names(opened.folder))

    def refresh(self, force: bool = False) -> None:
        """Pick up a swapped-in build or update (checked at most once a second)."""
        if not self._refresh_due.due(force):
            return
        with self._lock:
            stamp = self._stamp_now()
            if stamp and stamp != self._live.stamp:
                self._open()

    def _current(self) -> _Live:
        """The live searcher and rows, as one pair: a swap in between cannot mix them."""
        self.refresh()
        return self._live

    @property
    def searcher(self) -> tantivy.Searcher:
        return self._current().searcher

    def document_count(self) -> int:
        return self.searcher.num_docs

    def term_doc_freq(self, term: str) -> int:
        """Papers whose `text` (title, abstract, keywords) has this analyzed term."""
        return self.searcher.doc_freq("text", term)

    def phrase_count(self, text: str) -> int:
        """Papers whose `text` has the words of `text` as a phrase: the total of a search for the
        phrase, counted without compiling a whole query and its title boost (which only scores):
        ~0.07 ms against ~0.12 ms, a Chinese term page counts one or two (compounds.gap_spellings)."""
        positioned = _positioned_terms(text, ENGLISH)
        if not positioned:
            return 0  # only stop words: the search ignores them and matches nothing
        searcher = self.searcher
        with stage("engine"):
            return searcher.search(self._field_match("text", positioned), 1, count=True).count  # type: ignore[attr-defined]

    # -- queries ---------------------------------------------------------------------
    def _term(self, field_name: str, term: str) -> tantivy.Query:
        return tantivy.Query.term_query(self._schema, field_name, term)

    def _field_match(self, field_name: str, positioned: Sequence[tuple[int, str]]) -> tantivy.Query:
        if len(positioned) == 1:
            return self._term(field_name, positioned[0][1])
        first = positioned[0][0]
        return tantivy.Query.phrase_query(self._schema, field_name, [(pos - first, term) for pos, term in positioned])

    def _words(self, words: Words, title_boosts: list | None = None) -> tantivy.Query | None:
        """What must match for a typed word or phrase, its score times `words.weight`."""
        compiled = self._weightless(words, title_boosts if words.weight == 1.0 else None)
        if compiled is None or words.weight == 1.0:
            return compiled
        return tantivy.Query.boost_query(compiled, words.weight)

    def _weightless(self, words: Words, title_boosts: list | None = None) -> tantivy.Query | None:
        """What must match for a typed word or phrase.

        A plain word matches in `text` (which holds the title) or, if some paper has an
        author of that name, as an author. Its title boost only scores: it goes to
        `title_boosts` (optional clauses of the whole query), so the required part stays
        a plain intersection of terms that tantivy skips through quickly."""
        positioned = _positioned_terms(words.text, ENGLISH)
        if words.field is not None:
            return self._field_match(words.field, positioned) if positioned else None
        if not positioned:
            return None
        match = self._field_match("text", positioned)
        title = tantivy.Query.boost_query(self._field_match("title", positioned), FIELD_BOOSTS["title"])
        if not words.phrase:
            names = query_word_terms(words.text, NAMES)
            if len(names) == 1 and self._live.author_term(names[0]):
                author = self._term("authors", names[0])
                match = _should([match, author if AUTHOR_BOOST == 1.0 else tantivy.Query.boost_query(author, AUTHOR_BOOST)])
        if title_boosts is None:
            return _should([match, title])
        title_boosts.append(title)
        return match

    def _disjunction(self, words: list[Words]) -> tantivy.Query | None:
        """One flat OR over the words' terms in `text`; a word of several terms ("self-attention")
        is a phrase. (tantivy-py collects through a MultiCollector, so tantivy's block-max WAND
        does not run: every paper with one of the terms is scored.)"""
        clauses: dict[tuple, tantivy.Query] = {}
        for word in words:
            positioned = _positioned_terms(word.text, ENGLISH)
            if positioned:
                key = tuple(term for _, term in positioned)
                if key not in clauses:
                    clauses[key] = self._field_match("text", positioned)
        if not clauses:
            return None
        if len(clauses) == 1:
            return next(iter(clauses.values()))
        return _should(list(clauses.values()))

    def _author(self, name: str) -> tantivy.Query | None:
        positioned = _positioned_terms(name, NAMES)
        words = self._field_match("authors", positioned) if positioned else None
        found = self.author_papers(name) if self.author_papers is not None else None
        if found is None:
            return words
        is_id, paper_ids = found  # search.author_ids: an author id's papers, or a name's people's
        papers = tantivy.Query.term_set_query(self._schema, "id", list(paper_ids))
        return papers if is_id or words is None else _should([words, papers])

    def _node(self, node, scored: bool = True) -> tantivy.Query | None:
        """What must match for a node; `scored=False`: without the clauses that only score (a
        word's title boost: `text` starts with the title, so a title match is a `text` match)."""
        if isinstance(node, Words):
            return self._words(node) if scored else self._weightless(node, [])
        if isinstance(node, FieldValue):
            if node.field == "authors":
                return self._author(node.value)
            if node.field == "has":
                return self._term("code", HAS_CODE)
            if node.field == "institutions":
                return self._term("institution", _exact_institution(node.value))
            return self._term(FILTER_FIELD_NAMES[node.field], node.value.lower())
        options = [query for query in (self._node(option, scored) for option in node.options) if query is not None]
        return _should(options) if options else None

    def _filter_clauses(self, filters: Filters) -> list[tantivy.Query]:
        clauses = []
        for filter_name, field_name in FILTER_FIELD_NAMES.items():
            values = getattr(filters, filter_name)
            if values:
                lowered = sorted({value.lower() for value in values})
                clauses.append(tantivy.Query.term_set_query(self._schema, field_name, lowered))
        if filters.institutions:
            names = sorted({_exact_institution(name) for name in filters.institutions})
            clauses.append(tantivy.Query.term_set_query(self._schema, "institution", names))
        if filters.has_code:
            clauses.append(self._term("code", HAS_CODE))
        if filters.tags or filters.paper_ids is not None:  # tag:NAME, resolved to its papers (none when unresolved)
            clauses.append(tantivy.Query.term_set_query(self._schema, "id", sorted(filters.paper_ids or ())))
        if filters.year_from is not None or filters.year_to is not None:
            clauses.append(tantivy.Query.range_query(
                self._schema, "year", tantivy.FieldType.Integer, filters.year_from, filters.year_to))
        for author in filters.authors:
            query = self._author(author)
            clauses.append(query if query is not None else tantivy.Query.empty_query())
        return clauses

    def compile(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None) -> tuple[tantivy.Query, bool]:
        """(tantivy query, whether typed words were all dropped as unsearchable)."""
        plan = self.plan(query, candidate_ids)
        return plan.scored, plan.ignored

    def plan(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None) -> Plan:
        """The query to rank with, and the same query without its score-only clauses."""
        must: list[tantivy.Query] = []
        must_match: list[tantivy.Query] = []  # the same without clauses that only score (in an AnyOf's options)
        title_boosts: list[tantivy.Query] = []
        strict, relaxed_words = query.split_required()
        dropped = 0
        for node in strict:
            compiled = self._words(node, title_boosts) if isinstance(node, Words) else self._node(node)
            if compiled is None:
                dropped += 1
            else:
                must.append(compiled)
                matched = self._node(node, scored=False) if isinstance(node, AnyOf) else None
                must_match.append(compiled if matched is None else matched)
        if relaxed_words:
            disjunction = self._disjunction(relaxed_words)
            if disjunction is None:
                dropped += len(relaxed_words)
            else:
                must.append(disjunction)
                must_match.append(disjunction)
        if query.required and dropped == len(query.required):
            return Plan(_EMPTY, _EMPTY, True)
        filters = self._filter_clauses(query.filters)
        if candidate_ids is not None:
            filters.append(tantivy.Query.term_set_query(self._schema, "id", list(candidate_ids)))
        rest = [(tantivy.Occur.Must, tantivy.Query.const_score_query(clause, 0.0)) for clause in filters]
        for node in query.excluded:
            compiled = self._node(node)
            if compiled is not None:
                rest.append((tantivy.Occur.MustNot, compiled))
        if not must and not filters:
            rest.append((tantivy.Occur.Must, tantivy.Query.all_query()))
        # a Chinese page's phrases (crosslingual.phrase_query): its facets are counted over the
        # options' `text` phrases alone, not their title phrases too (~0.04 ms of ~0.26)
        matching = _combined([(tantivy.Occur.Must, clause) for clause in must_match] + rest)
        if not title_boosts and must_match == must:  # the same clauses (list equality: the same objects)
            return Plan(matching, matching, False)
        boosts = [(tantivy.Occur.Should, boost) for boost in title_boosts]
        return Plan(_combined([(tantivy.Occur.Must, clause) for clause in must] + rest + boosts), matching, False)

    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, with_papers: bool = False, candidate_ids: Sequence[str] | None = None,
               depth: int | None = None) -> BackendResult:
        live = self._current()
        searcher, rows_of = live.searcher, live.rows
        if (candidate_ids is not None and sort == "relevance" and _only_candidates(query) and offset == 0
                and limit >= len(candidate_ids)):
            return _candidates_present(live, candidate_ids, with_facets, with_papers)
        with stage("query"):
            plan = self.plan(query, candidate_ids)
        ignored = plan.ignored
        if query.match == "any" and query.has_text:
            depth = max(depth or 0, offset + limit)
            return self._search_ranked(live, plan.scored, sort, offset, limit, depth, with_facets, with_papers, ignored)
        with stage("engine"):
            if sort == "relevance":
                result = searcher.search(plan.scored, limit, count=not with_facets, offset=offset)
            else:
                order = tantivy.Order.Desc if sort == "newest" else tantivy.Order.Asc
                result = searcher.search(plan.scored, limit, count=not with_facets, offset=offset,
                                         order_by_field="year", order=order)
            hits = result.hits  # (tantivy-py builds the list anew at each read of .hits)
            rows = _rows_of(searcher, [address for _, address in hits])
        scores = [float(score) for score, _ in hits] if sort == "relevance" else [0.0] * len(hits)
        if not with_facets:
            total, facets = result.count, {}  # type: ignore[attr-defined]  # tantivy 0.27's stub omits SearchResult.count
        elif offset == 0 and len(rows) < limit:
            total, facets = len(rows), _facets_of_rows(live, rows)  # the page holds every match
        else:
            total, facets = _facets(live, plan.matching)  # one pass counts all and every facet
        return _result(rows_of, rows, scores, total, facets, with_papers, ignored)

    @staticmethod
    def _search_ranked(live: _Live, compiled, sort, offset, limit, depth, with_facets, with_papers,
                       ignored) -> BackendResult:
        """The best `depth` matches by BM25 are the result set."""
        with stage("engine"):
            hits = live.searcher.search(compiled, depth, count=False).hits
            rows = _rows_of(live.searcher, [address for _, address in hits])
        page = slice(offset, offset + limit)
        if sort == "relevance":
            scores = [float(score) for score, _ in hits[page]]  # the page's only
        else:
            years = live.rows.years(rows)
            order = sorted(range(len(rows)), key=lambda i: years[i], reverse=sort == "newest")
            rows = [rows[i] for i in order]
            scores = [0.0] * len(rows[page])
        facets = _facets_of_rows(live, rows) if with_facets else {}
        return _result(live.rows, rows[page], scores, len(rows), facets, with_papers, ignored)

    def facet_values(self) -> dict[str, list[FacetValue]]:
        """Every value of every facet field over the whole index (cached per index version)."""
        live = self._current()
        if live.all_facets is None:
            live.all_facets = _facets(live, tantivy.Query.all_query())[1]
        return live.all_facets

    # -- highlights ------------------------------------------------------------------
    def highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]:
        """Title and abstract of each paper, HTML-escaped, with the query's words marked."""
        with stage("highlights"):
            return self._highlight(query, papers)

    def _highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]:
        marked = query_terms(query)
        if len(marked) > MAX_MARKED_TERMS:
            # A long description would mark half the abstract ("model", "data"...): mark
            # its most specific terms, the ones fewest papers contain.
            searcher = self.searcher
            marked = frozenset(sorted(marked, key=lambda term: (searcher.doc_freq("text", term), term))[:MAX_MARKED_TERMS])
        known = self._current().known_word  # snippets are of the text without PDF-extraction debris
        texts = [getattr(paper, name) for paper in papers for name in HIGHLIGHT_FIELDS]
        marked_texts = iter(Highlighter(marked).mark_many(cleaned_texts(texts, known)))
        first, second = HIGHLIGHT_FIELDS  # each paper's two texts, in turn
        return [{first: title, second: abstract} for title, abstract in zip(marked_texts, marked_texts)]


@dataclass(slots=True)
class _Live:
    """One generation as readers use it: searcher and rows always from the same commit."""

    index: tantivy.Index
    searcher: tantivy.Searcher
    rows: RowReader
    stamp: str
    keep: object = None  # what must outlive the searcher (a read-only index's folder of links)
    all_facets: dict[str, list[FacetValue]] | None = None
    facet_table: FacetTable | None = None  # built once per row-store load, not per query
    institution_names: list[str] = field(default_factory=list)  # by code (index/lexical.py InstitutionCodes)
    _known_word: Callable[[str], bool] | None = None
    _author_term: Callable[[str], bool] | None = None

    @property
    def author_term(self) -> Callable[[str], bool]:
        """name term -> whether some paper of this generation has an author of that name (each
        term looked up once per generation: a plain word of every query asks)."""
        if self._author_term is None:
            searcher = self.searcher
            self._author_term = lru_cache(maxsize=65536)(lambda term: searcher.doc_freq("authors", term) > 0)
        return self._author_term

    @property
    def known_word(self) -> Callable[[str], bool]:
        """debris.known_words of this generation, each word's verdict remembered (the index
        of a generation never changes): pages join the same line-end hyphen pairs again."""
        if self._known_word is None:
            searcher = self.searcher
            known = known_words(lambda term: searcher.doc_freq("text", term))
            assert known is not None
            self._known_word = lru_cache(maxsize=65536)(known)
        return self._known_word

    def facets_for(self, max_codes: Sequence[int] = ()) -> FacetTable:
        """The facet table of the rows' current keys (reloading rows for a code past them;
        max_codes: the highest code seen in each facet group)."""
        if any(code >= len(keys) for code, keys in zip(max_codes, self.rows.keys)):
            self.rows.load()  # a commit visible before this reader reloaded
        keys, table = self.rows.keys, self.facet_table
        if table is None or table.keys is not keys:
            table = self.facet_table = FacetTable(keys)
        return table


def _rows_of(searcher: tantivy.Searcher, addresses: list) -> list[int]:
    # "row" is an unsigned fast field: every value is an int (the stub types any fast field)
    return cast("list[int]", searcher.fast_field_values("row", addresses)) if addresses else []


def _only_candidates(query: ParsedQuery) -> bool:
    """A query that matches every paper (no words, filters or exclusions): with candidate ids,
    its matches are the candidates the index holds."""
    return not query.required and not query.excluded and query.filters.is_empty()


def _candidates_present(live: _Live, candidate_ids: Sequence[str], with_facets: bool,
                        with_papers: bool) -> BackendResult:
    """Every candidate the index holds (a retriever's candidates, a ranked page's ids), found by
    the row store's id table instead of a term-set query: 1,000 candidates cost ~28 ms to
    match and ~30 ms more to aggregate in tantivy (load ~11), the table a few hundred µs.
    Same papers, total and facets as the query; scores 0 as the query's constant score;
    in the candidates' order (the query's is the index's, which no caller uses)."""
    with stage("engine"):
        rows = live.rows.rows_of_ids(list(dict.fromkeys(candidate_ids)))
    facets = _facets_of_rows(live, rows) if with_facets else {}
    return _result(live.rows, rows, [0.0] * len(rows), len(rows), facets, with_papers, False)


def _result(rows_of: RowReader, rows, scores, total, facets, with_papers, ignored) -> BackendResult:
    if with_papers:
        with stage("rows"):
            papers = rows_of.papers(rows)
        return BackendResult(papers, scores, total, facets, ignored)
    return BackendResult([], scores, total, facets, ignored, rows_of.paper_ids(rows))


def _facets(live: _Live, compiled: tantivy.Query) -> tuple[int, dict[str, list[FacetValue]]]:
    """(total matches, counts per facet value) from one pass with a terms aggregation per facet group."""
    with stage("engine"):
        answer = live.searcher.aggregate(compiled, FACET_AGGREGATION if live.institution_names else CODE_AGGREGATION)
    with stage("facets"):
        return _facet_counts(live, answer)


def _facet_counts(live: _Live, answer: dict) -> tuple[int, dict[str, list[FacetValue]]]:
    groups = [bucket_counts(answer[name]["buckets"]) for name in FACET_CODE_FIELDS]
    max_codes = [int(codes[codes.argmax()]) if len(codes) else -1 for codes, _ in groups]  # (.max() goes through Python)
    total, facets = live.facets_for(max_codes).of_code_counts(groups)
    names = live.institution_names
    buckets = answer[INSTITUTION_FACET]["buckets"] if names else []
    facets[INSTITUTION_FACET] = _ordered_institutions(
        (names[int(bucket["key"])], int(bucket["doc_count"])) for bucket in buckets)
    return total, facets


def _facets_of_rows(live: _Live, rows: list[int]) -> dict[str, list[FacetValue]]:
    with stage("facets"):
        return _counted_facets_of_rows(live, rows)


def _counted_facets_of_rows(live: _Live, rows: list[int]) -> dict[str, list[FacetValue]]:
    codes = live.rows.facet_codes(rows)  # loads rows that are newer than this reader first
    facets = live.facets_for().of_codes(codes)
    # Institutions are counted from the rows' records (up to RELAXED_DEPTH of them), unless
    # the generation names none: then no paper has one, and no record need be decoded.
    if not (rows and live.institution_names):
        facets[INSTITUTION_FACET] = []  # (a Counter of nothing costs a page ~1% of its time)
        return facets
    counted = Counter(name for paper in live.rows.papers(rows) for name in paper_institutions(paper))
    facets[INSTITUTION_FACET] = _ordered_institutions(counted.items())
    return facets


def _ordered_institutions(counts) -> list[FacetValue]:
    """The INSTITUTION_FACET_SIZE most frequent, most papers first, ties by name (as the
    aggregation's own cut is not: counted from rows, the same list as from the aggregation
    wherever the cut falls between counts)."""
    ordered = sorted(counts, key=lambda item: (-item[1], item[0]))
    return [FacetValue(name, count) for name, count in ordered[:INSTITUTION_FACET_SIZE]]


def _exact_institution(name: str) -> str:
    """A typed institution as the `institution` field holds it (index/lexical.py)."""
    return " ".join(name.split()).lower()


@lru_cache(maxsize=QUERY_WORDS_KEPT)
def _positioned_terms(text: str, analyzer_name: str) -> tuple[tuple[int, str], ...]:
    """positioned_terms of a query word, remembered (analysis is pure), and cheaper for the
    common word of one term (whose position is not used): the analyzer's plain term list skips
    building token objects."""
    found = query_word_terms(text, analyzer_name)
    if len(found) > 1:
        return tuple(positioned_terms(text, analyzer_name))
    return tuple((0, term) for term in found)


def _combined(clauses: list[tuple[tantivy.Occur, tantivy.Query]]) -> tantivy.Query:
    if len(clauses) == 1 and clauses[0][0] == tantivy.Occur.Must:
        return clauses[0][1]
    return tantivy.Query.boolean_query(clauses)


def _should(queries: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, query) for query in queries])
