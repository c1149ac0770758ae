"""TypesenseBackend: the search backend interface (papersift.search.backend) on a Typesense cluster.

SearchService uses it exactly as it uses the embedded TantivyBackend: parsed query in,
ranked ids + total + facets out. The split of work:

- Typesense matches and counts: the query's words become `filter_by` clauses over the
  analyzed term fields (exact boolean semantics: every word in any field, OR groups,
  exclusions, field-scoped words, the structured filters), plus a `q` over the same
  terms that orders candidates (title matches first); facets are counted by Typesense
  over every match.
- papersift ranks: the top candidates are rescored with tantivy's BM25 (same analyzers,
  field boosts, idf from Typesense document counts, length norms from the collection's
  meta), so keyword results agree with the embedded backend.

Highlights are made from the paper text with the query's terms, like the embedded ones.
The typesense client spreads requests over every node and retries on another node when
one fails, so a dead node (or a leader election) costs retries, not errors.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import typesense

from papersift.backends import bm25
from papersift.backends.typesense_index import ALIAS, alias_target, read_meta
from papersift.backends.typesense_query import (
    FIELD_TERMS,
    MATCH_FIELD,
    Clause,
    Compiled,
    QueryCompiler,
    quote,
    term_filter,
)
from papersift.index.debris import clean_extraction_debris, known_words
from papersift.record import PAPER_FIELDS, Paper
from papersift.search.backend import (
    HIGHLIGHT_FIELDS,
    BackendResult,
    query_terms,
)
from papersift.search.highlight import Highlighter
from papersift.search.query import ParsedQuery
from papersift.search.types import LABEL_FACET_FIELDS as FACET_FIELDS  # no code / institution facets here
from papersift.search.types import FacetValue, Sort
from papersift.throttle import Throttle

if TYPE_CHECKING:
    from typesense.types.multi_search import MultiSearchRequestSchema

FACET_SIZE = 250  # values per facet field (the shared corpus has 215 facet combinations)
CANDIDATE_DEPTH = 250  # candidates rescored per query (one Typesense page)
TYPESENSE_PAGE = 250
REFRESH_EVERY_S = 1.0
MULTI_SEARCH_ATTEMPTS = 4
LAG_RETRIES = 20
PAPER_INCLUDE = ",".join(PAPER_FIELDS)


def _result(papers: list[Paper], scores: list[float], total: int, facets: dict, with_papers: bool,
            ids: list[str] | None = None, ignored: bool = False) -> BackendResult:
    return BackendResult(papers, scores, total, facets, ignored, None if with_papers else (ids or []))


def facet_counts(documents: list[dict]) -> dict[str, list[FacetValue]]:
    """Facet values of a fixed result set (the "any" query's best papers), ordered as Typesense's."""
    counts: dict[str, dict[str, int]] = {name: {} for name in FACET_FIELDS}
    for document in documents:
        for name in FACET_FIELDS:
            value = document.get(name)
            if value is not None:
                counts[name][str(value)] = counts[name].get(str(value), 0) + 1
    return {name: _ordered(name, [FacetValue(value, count) for value, count in values.items()])
            for name, values in counts.items()}


def _ordered(name: str, values: list[FacetValue]) -> list[FacetValue]:
    if name == "year":
        return sorted(values, key=lambda value: value.value, reverse=True)
    return sorted(values, key=lambda value: (-value.count, value.value))


def document_paper(document: dict) -> Paper:
    """The Paper a Typesense document carries (stored as the store holds it, source aside)."""
    values: dict[str, Any] = {name: document.get(name) for name in PAPER_FIELDS}
    values["authors"] = tuple(values["authors"] or ())
    values["keywords"] = tuple(values["keywords"] or ())
    values["author_ids"] = tuple(values["author_ids"] or ())
    values["affiliations"] = tuple(values["affiliations"] or ())
    return Paper(**values)


class TypesenseBackend:
    """Searches the collection behind the alias; picks up a swapped-in build within a second."""

    def __init__(self, client: typesense.Client, alias: str = ALIAS, candidate_depth: int = CANDIDATE_DEPTH):
        self.client = client
        self.alias = alias
        self.candidate_depth = candidate_depth
        self._lock = threading.Lock()
        self._collection: str | None = None
        self._meta: dict = {}
        self._doc_freqs: dict[tuple[str, str], int] = {}
        self._all_facets: dict[str, list[FacetValue]] | None = None
        self._refresh_due = Throttle(REFRESH_EVERY_S)
        self.refresh(force=True)

    # -- collection lifecycle --------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        if not self._refresh_due.due(force):
            return
        with self._lock:
            collection, meta = self._live_collection()
            if collection != self._collection:
                self._meta = meta
                self._collection, self._doc_freqs, self._all_facets = collection, {}, None

    def _live_collection(self) -> tuple[str, dict]:
        """The alias's collection and its meta; a node that has not applied a fresh build yet
        answers 404, so ask again (the client moves on to the next node)."""
        for _ in range(LAG_RETRIES):
            try:
                collection = alias_target(self.client, self.alias)
                if collection is not None:
                    return collection, read_meta(self.client, collection)
            except typesense.exceptions.ObjectNotFound:
                pass
            time.sleep(0.1)
        raise LookupError(f"no Typesense alias {self.alias!r}: run 'papersift index --backend typesense' first")

    def vector_model(self) -> str | None:
        """The embedding model of the collection's vectors (None: text only)."""
        self.refresh()
        return self._meta.get("vector_model") or None

    def document_count(self) -> int:
        self.refresh()
        return int(self._meta["documents"])

    # -- compiling the parsed query (backends/typesense_query.py) ----------------------
    def _is_author(self, name_term: str) -> bool:
        return self._doc_freq_table([Clause("authors", (name_term,), 1.0)])[("authors", name_term)] > 0

    def compile(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None,
                require_abstract: bool = False) -> Compiled:
        return QueryCompiler(self._is_author).compile(query, candidate_ids, require_abstract)

    # -- searching -------------------------------------------------------------------
    def _search_params(self, compiled: Compiled, sort: Sort, page: int, per_page: int, facets: bool,
                       fetch_terms: bool) -> dict:
        params = {
            "collection": self.alias,
            "q": " ".join([*dict.fromkeys(compiled.q_terms), *compiled.phrases]) or "*",
            "query_by": f"text_tf4,text_tf2,{MATCH_FIELD}",
            "query_by_weights": "3,2,1",
            "num_typos": 0,
            "prefix": "false",
            # q orders candidates; filter_by decides the matches ("any word" mode lets q drop words).
            "drop_tokens_threshold": 0 if compiled.match_all else per_page * page,
            "typo_tokens_threshold": 0,
            "page": page,
            "per_page": per_page,
            "include_fields": ",".join(("id", "seq", *FACET_FIELDS, *self._scored_fields(compiled)))
            if fetch_terms else PAPER_INCLUDE,
            "highlight_fields": "none",
            "enable_highlight_v1": "false",
        }
        if compiled.filter_parts:
            params["filter_by"] = " && ".join(compiled.filter_parts)
        if sort != "relevance":
            params["sort_by"] = f"year:{'desc' if sort == 'newest' else 'asc'},_text_match:desc"
        elif compiled.scoring:
            params["sort_by"] = "_text_match:desc,text_terms_len:asc"  # BM25 favours short texts
        if facets:
            params["facet_by"] = ",".join(FACET_FIELDS)
            params["max_facet_values"] = FACET_SIZE
        return params

    @staticmethod
    def _scored_fields(compiled: Compiled) -> list[str]:
        """Only the term fields the query's BM25 reads travel back (they are most of the bytes)."""
        names = {clause.field for alternatives in compiled.scoring for clause in alternatives}
        return [FIELD_TERMS[name] for name in sorted(names)]

    def _multi_search(self, searches: list[dict]) -> list[dict]:
        """One POST for many searches. An error inside the answer (a node that is not ready,
        or has not yet applied the alias) is retried, and the client then asks the next node."""
        for attempt in range(MULTI_SEARCH_ATTEMPTS):
            request = cast("MultiSearchRequestSchema", {"searches": searches})
            # typesense types every result as a SearchResponse; one that failed is {"error", "code"}
            results = cast("list[dict[str, Any]]", self.client.multi_search.perform(request, {})["results"])
            errors = [result["error"] for result in results if "error" in result]
            if not errors:
                return results
            time.sleep(0.05 * (attempt + 1))
        raise RuntimeError(f"typesense search failed: {errors[0]}")

    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, with_papers: bool = False, candidate_ids: Sequence[str] | None = None,
               depth: int | None = None, require_abstract: bool = False) -> BackendResult:
        """One page of hits. `depth`: for "any" queries, the best `depth` papers form the result set."""
        self.refresh()
        compiled = self.compile(query, candidate_ids, require_abstract)
        if compiled.ignored:
            return _result([], [], 0, {}, with_papers, ignored=True)
        if depth is not None and query.match == "any" and query.has_text:
            return self._search_ranked(compiled, sort, offset, limit, depth, with_facets, with_papers)
        rerank = sort == "relevance" and bool(compiled.scoring)
        if rerank and not query.match_all:
            hits, total, facets = self._any_word_candidates(compiled, with_facets)
        else:
            hits, total, facets = self._candidates(compiled, sort, offset, limit, rerank, with_facets)
        if rerank:
            ranked = self._ranked(compiled, hits)[offset:offset + limit]
        else:
            ranked = [(hit, 0.0) for hit in hits]
        return self._page(ranked, total, facets, with_papers, fetched=not rerank)

    def _search_ranked(self, compiled: Compiled, sort: Sort, offset: int, limit: int, depth: int,
                       with_facets: bool, with_papers: bool) -> BackendResult:
        """The best `depth` matches by BM25 are the result set; facets are counted over them."""
        hits, _, _ = self._any_word_candidates(compiled, with_facets=False, per_search=max(depth, 1))
        ranked = self._ranked(compiled, hits)[:depth]
        if sort != "relevance":
            ranked = sorted(((hit, 0.0) for hit, _ in ranked), key=lambda pair: pair[0].get("year") or 0,
                            reverse=sort == "newest")
        facets = facet_counts([hit for hit, _ in ranked]) if with_facets else {}
        return self._page(ranked[offset:offset + limit], len(ranked), facets, with_papers, fetched=False)

    def _ranked(self, compiled: Compiled, hits: list[dict]) -> list[tuple[dict, float]]:
        scores = self._bm25(compiled, hits)
        # Equal scores keep store order, as tantivy keeps insertion order.
        return sorted(zip(hits, scores), key=lambda pair: (-round(pair[1], 4), pair[0]["seq"]))

    def _page(self, ranked: list[tuple[dict, float]], total: int, facets: dict, with_papers: bool,
              fetched: bool) -> BackendResult:
        ids = [hit["id"] for hit, _ in ranked]
        scores = [score for _, score in ranked]
        if not with_papers:
            return _result([], scores, total, facets, False, ids)
        if fetched:
            papers = [document_paper(hit) for hit, _ in ranked]
        else:
            by_id = self._papers(ids)
            kept = [index for index, paper_id in enumerate(ids) if paper_id in by_id]
            papers, scores = [by_id[ids[index]] for index in kept], [scores[index] for index in kept]
        return _result(papers, scores, total, facets, True)

    def _candidates(self, compiled: Compiled, sort: Sort, offset: int, limit: int, rerank: bool,
                    with_facets: bool) -> tuple[list[dict], int, dict]:
        """Typesense's best matches: the top candidates to rescore, or the page itself. The
        count and facets come from a q-less search: the filter alone is the exact match set."""
        if not rerank:  # Typesense's pages (at most 250 hits each) that hold hits offset..offset+limit
            size = min(limit, TYPESENSE_PAGE)
            pages = list(range(offset // size + 1, (offset + limit - 1) // size + 2))
            results = self._multi_search([
                self._search_params(compiled, sort, page, size, with_facets and page == pages[0], fetch_terms=False)
                | {"q": " ".join(compiled.phrases) or "*"} for page in pages])
            hits = [hit["document"] for result in results for hit in result["hits"]]
            start = offset - (pages[0] - 1) * size
            facets = self._facets(results[0]) if with_facets else {}
            return hits[start:start + limit], int(results[0]["found"]), facets
        depth = max(self.candidate_depth, offset + limit)
        # Phrases stay in q: only q can ask for words side by side.
        phrases_only = " ".join(compiled.phrases) or "*"
        searches = [self._search_params(compiled, sort, 1, 0, with_facets, fetch_terms=False) | {"q": phrases_only}]
        for page in range(1, -(-depth // TYPESENSE_PAGE) + 1):
            searches.append(self._search_params(compiled, sort, page, TYPESENSE_PAGE, False, fetch_terms=True))
        for word_terms, name in compiled.author_words:  # papers that have the word only as an author's name
            rest = [term for term in compiled.q_terms if term not in word_terms]
            searches.append(self._search_params(compiled, sort, 1, TYPESENSE_PAGE, False, fetch_terms=True)
                            | {"q": " ".join([*rest, *compiled.phrases]) or "*", "filter_by": " && ".join(
                                [*compiled.filter_parts, term_filter(FIELD_TERMS["authors"], [name])])})
        results = self._multi_search(searches)
        by_id: dict[str, dict] = {}
        for result in results[1:]:
            for hit in result["hits"]:
                by_id.setdefault(hit["document"]["id"], hit["document"])
        counted = results[0]
        return list(by_id.values()), int(counted["found"]), self._facets(counted) if with_facets else {}

    def _any_word_candidates(self, compiled: Compiled, with_facets: bool,
                             per_search: int = TYPESENSE_PAGE) -> tuple[list[dict], int, dict]:
        """"Any word may match": Typesense 0.24 drops query words right to left only, so one
        search per suffix of the words covers every run of them; a q-less search counts."""
        words = list(dict.fromkeys(compiled.q_terms))
        searches = [self._search_params(compiled, "relevance", 1, min(per_search, TYPESENSE_PAGE), False,
                                        fetch_terms=True)
                    | {"q": " ".join(words[start:])} for start in range(len(words))]
        searches.append(self._search_params(compiled, "relevance", 1, 0, with_facets, fetch_terms=False) | {"q": "*"})
        results = self._multi_search(searches)
        counted = results[-1]
        hits: dict[str, dict] = {}
        for result in results[:-1]:
            for hit in result["hits"]:
                hits.setdefault(hit["document"]["id"], hit["document"])
        return list(hits.values()), int(counted["found"]), self._facets(counted) if with_facets else {}

    def _papers(self, paper_ids: list[str]) -> dict[str, Paper]:
        if not paper_ids:
            return {}
        params = {"collection": self.alias, "q": "*", "per_page": len(paper_ids), "include_fields": PAPER_INCLUDE,
                  "filter_by": f"id:[{','.join(quote(paper_id) for paper_id in paper_ids)}]"}
        result = self._multi_search([params])[0]
        papers = (document_paper(hit["document"]) for hit in result["hits"])
        return {paper.id: paper for paper in papers}

    # -- BM25 ------------------------------------------------------------------------
    def _doc_freq_table(self, clauses: list[Clause]) -> dict[tuple[str, str], int]:
        wanted = {(clause.field, term) for clause in clauses for term in clause.terms}
        missing = [key for key in wanted if key not in self._doc_freqs]
        if missing:
            searches = [{"collection": self.alias, "q": "*", "per_page": 0,
                         "filter_by": f"{FIELD_TERMS[name]}:{quote(term)}"} for name, term in missing]
            for start in range(0, len(searches), 40):
                results = self._multi_search(searches[start:start + 40])
                for key, result in zip(missing[start:start + 40], results):
                    self._doc_freqs[key] = int(result["found"])
        return {key: self._doc_freqs[key] for key in wanted}

    def _bm25(self, compiled: Compiled, documents: list[dict]) -> list[float]:
        clauses = [clause for alternatives in compiled.scoring for clause in alternatives]
        doc_freqs = self._doc_freq_table(clauses)
        doc_count = int(self._meta["documents"])
        weights = {clause: sum(bm25.idf(doc_freqs[(clause.field, term)], doc_count) for term in clause.terms)
                   for clause in clauses}
        averages = {name: float(self._meta[f"avg_{FIELD_TERMS[name]}_len"]) for name in FIELD_TERMS}
        scores = []
        scored = {clause.field for clause in clauses}
        for document in documents:
            field_terms = {name: (document.get(FIELD_TERMS[name]) or "").split() for name in scored}
            score = 0.0
            for clause in clauses:
                in_field = field_terms[clause.field]
                freq = bm25.phrase_freq(in_field, clause.terms)
                score += clause.boost * bm25.term_score(freq, len(in_field), averages[clause.field], weights[clause])
            scores.append(score)
        return scores

    # -- facets ----------------------------------------------------------------------
    @staticmethod
    def _facets(result: dict) -> dict[str, list[FacetValue]]:
        facets: dict[str, list[FacetValue]] = {name: [] for name in FACET_FIELDS}
        for counted in result.get("facet_counts", []):
            values = [FacetValue(str(item["value"]), int(item["count"])) for item in counted["counts"]]
            facets[counted["field_name"]] = _ordered(counted["field_name"], values)
        return facets

    def facet_values(self) -> dict[str, list[FacetValue]]:
        self.refresh()
        if self._all_facets is None:
            self._all_facets = self.search(ParsedQuery(), "newest", 0, 1).facets
        return self._all_facets

    # -- highlights ------------------------------------------------------------------
    def highlight(self, query: ParsedQuery, papers: Sequence[Paper]) -> list[dict[str, str]]:
        """Title and abstract, HTML-escaped, with the query's words marked (as the embedded backend)."""
        highlight = Highlighter(query_terms(query))
        known = known_words(self.term_doc_freq)  # snippets of the text without PDF-extraction debris
        return [{name: highlight(clean_extraction_debris(text, known) if (text := getattr(paper, name)) else text)
                 for name in HIGHLIGHT_FIELDS} for paper in papers]

    def term_doc_freq(self, term: str) -> int:
        """Papers whose `text` has this analyzed term (asked of the cluster once, then cached)."""
        return self._doc_freq_table([Clause("text", (term,), 1.0)])[("text", term)]
