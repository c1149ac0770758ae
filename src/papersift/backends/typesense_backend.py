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
from dataclasses import dataclass, field

import typesense

from papersift.backends import bm25
from papersift.backends.typesense_index import ALIAS, TERM_FIELDS, alias_target, read_meta
from papersift.index.analyzers import ENGLISH, NAMES, terms
from papersift.record import PAPER_FIELDS, Paper
from papersift.search.backend import (
    AUTHOR_BOOST, DEFAULT_FIELDS, FIELD_BOOSTS, FILTER_FIELD_NAMES, HIGHLIGHT_FIELDS, BackendResult, query_terms,
)
from papersift.search.highlight import Highlighter
from papersift.search.query import AnyOf, FieldValue, ParsedQuery, Words
from papersift.search.types import FACET_FIELDS, FacetValue, Sort

FACET_SIZE = 250  # values per facet field (the shared corpus has 215 facet combinations)
CANDIDATE_DEPTH = 250  # candidates rescored per query (one Typesense page)
TYPESENSE_PAGE = 250
REFRESH_EVERY_S = 1.0
MULTI_SEARCH_ATTEMPTS = 4
LAG_RETRIES = 20
PAPER_INCLUDE = ",".join(PAPER_FIELDS)
FIELD_TERMS = {name: field for field, name in TERM_FIELDS.items()}  # papersift field -> Typesense field
MATCH_FIELD = FIELD_TERMS["text"]  # a plain word matches when it is in title, abstract or keywords


@dataclass(frozen=True, slots=True)
class Clause:
    """One scored part of the query: a term or phrase in one field, with its boost."""

    field: str  # papersift field name: text, title, abstract, keywords, authors
    terms: tuple[str, ...]
    boost: float


@dataclass(slots=True)
class Compiled:
    filter_parts: list[str] = field(default_factory=list)
    q_terms: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)  # quoted in q: Typesense keeps only papers with the phrase
    match_all: bool = True
    scoring: list[list[Clause]] = field(default_factory=list)  # per query node: its alternatives
    ignored: bool = False


def _quote(value: str) -> str:
    return "`" + value.replace("`", "") + "`"


def _term_filter(field_name: str, field_terms: Sequence[str], negate: bool = False) -> str:
    operator = ":!" if negate else ":"
    joined = " && ".join(f"{field_name}{operator}{_quote(term)}" for term in field_terms)
    return f"({joined})"


def document_paper(document: dict) -> Paper:
    """The Paper a Typesense document carries (stored as the store holds it, source aside)."""
    values = {name: document.get(name) for name in PAPER_FIELDS}
    values["authors"] = tuple(values["authors"] or ())
    values["keywords"] = tuple(values["keywords"] or ())
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
        self._checked_at = 0.0
        self.refresh(force=True)

    # -- collection lifecycle --------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._checked_at < REFRESH_EVERY_S:
            return
        with self._lock:
            self._checked_at = now
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

    def document_count(self) -> int:
        self.refresh()
        return int(self._meta["documents"])

    # -- compiling the parsed query --------------------------------------------------
    def _words(self, words: Words, negate: bool = False) -> tuple[str | None, list[Clause]]:
        english = terms(words.text, ENGLISH)
        field_names = (words.field,) if words.field else DEFAULT_FIELDS
        alternatives = [Clause(name, tuple(english), FIELD_BOOSTS[name]) for name in field_names] if english else []
        target = FIELD_TERMS[words.field] if words.field else MATCH_FIELD
        parts = [_term_filter(target, english, negate)] if english else []
        if english and words.field is None and not words.phrase:
            names = terms(words.text, NAMES)
            if len(names) == 1:  # a single plain word may be an author's name
                alternatives.append(Clause("authors", (names[0],), AUTHOR_BOOST))
                parts.append(_term_filter(FIELD_TERMS["authors"], names, negate))
        if not parts:
            return None, []
        joiner = " && " if negate else " || "
        return f"({joiner.join(parts)})", alternatives

    def _field_value(self, node: FieldValue, negate: bool = False) -> str:
        if node.field == "authors":
            return _term_filter(FIELD_TERMS["authors"], terms(node.value, NAMES), negate)
        name = FILTER_FIELD_NAMES[node.field]
        return f"{name}:{'!=' if negate else '='}{_quote(node.value)}"

    def _node(self, node, compiled: Compiled) -> tuple[str | None, list[Clause]]:
        if isinstance(node, Words):
            return self._words(node)
        if isinstance(node, FieldValue):
            return self._field_value(node), []
        parts, alternatives = [], []
        for option in node.options:
            part, option_clauses = self._node(option, compiled)
            if part:
                parts.append(part)
                alternatives.extend(option_clauses)
        return (f"({' || '.join(parts)})" if parts else None), alternatives

    def compile(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None,
                require_abstract: bool = False) -> Compiled:
        compiled = Compiled(match_all=query.match_all)
        any_words: list[str] = []
        dropped = 0
        for node in query.required:
            part, alternatives = self._node(node, compiled)
            if part is None:
                dropped += 1
                continue
            if isinstance(node, Words):
                english = terms(node.text, ENGLISH)
                if len(english) > 1 and node.field is None and query.match_all:
                    compiled.phrases.append('"' + " ".join(english) + '"')
                else:
                    compiled.q_terms.extend(english)
            if alternatives:
                compiled.scoring.append(alternatives)
            if not query.match_all and isinstance(node, Words):
                any_words.append(part)
            else:
                compiled.filter_parts.append(part)
        if any_words:
            compiled.filter_parts.append(f"({' || '.join(any_words)})")
        compiled.ignored = bool(query.required) and dropped == len(query.required)
        for node in query.excluded:
            if isinstance(node, Words):
                english = terms(node.text, ENGLISH)
                if english:
                    compiled.filter_parts.append(_term_filter(MATCH_FIELD, english, negate=True))
            elif isinstance(node, FieldValue):
                compiled.filter_parts.append(self._field_value(node, negate=True))
        compiled.filter_parts.extend(self._filters(query))
        if candidate_ids is not None:
            ids = ",".join(_quote(paper_id) for paper_id in candidate_ids) or "`-`"
            compiled.filter_parts.append(f"id:[{ids}]")
        if require_abstract:
            compiled.filter_parts.append("has_abstract:=true")
        return compiled

    @staticmethod
    def _filters(query: ParsedQuery) -> list[str]:
        parts = []
        filters = query.filters
        for filter_name, field_name in FILTER_FIELD_NAMES.items():
            values = getattr(filters, filter_name)
            if values:
                parts.append(f"{field_name}:=[{','.join(_quote(value) for value in values)}]")
        if filters.year_from is not None:
            parts.append(f"year:>={filters.year_from}")
        if filters.year_to is not None:
            parts.append(f"year:<={filters.year_to}")
        for author in filters.authors:
            names = terms(author, NAMES)
            parts.append(_term_filter(FIELD_TERMS["authors"], names) if names else "id:=`-`")
        return parts

    # -- searching -------------------------------------------------------------------
    def _search_params(self, compiled: Compiled, sort: Sort, page: int, per_page: int, facets: bool,
                       fetch_terms: bool) -> dict:
        params = {
            "collection": self.alias,
            "q": " ".join([*dict.fromkeys(compiled.q_terms), *compiled.phrases]) or "*",
            "query_by": f"{MATCH_FIELD},title_terms",
            "query_by_weights": "2,1",
            "num_typos": 0,
            "prefix": "false",
            # q orders candidates; filter_by decides the matches ("any word" mode lets q drop words).
            "drop_tokens_threshold": 0 if compiled.match_all else per_page * page,
            "typo_tokens_threshold": 0,
            "page": page,
            "per_page": per_page,
            "include_fields": ",".join(("id", "seq", *TERM_FIELDS)) if fetch_terms else PAPER_INCLUDE,
            "highlight_fields": "none",
            "enable_highlight_v1": "false",
        }
        if compiled.filter_parts:
            params["filter_by"] = " && ".join(compiled.filter_parts)
        if sort != "relevance":
            params["sort_by"] = f"year:{'desc' if sort == 'newest' else 'asc'},_text_match:desc"
        if facets:
            params["facet_by"] = ",".join(FACET_FIELDS)
            params["max_facet_values"] = FACET_SIZE
        return params

    def _multi_search(self, searches: list[dict]) -> list[dict]:
        """One POST for many searches. An error inside the answer (a node that is not ready,
        or has not yet applied the alias) is retried, and the client then asks the next node."""
        for attempt in range(MULTI_SEARCH_ATTEMPTS):
            results = self.client.multi_search.perform({"searches": searches}, {})["results"]
            errors = [result["error"] for result in results if "error" in result]
            if not errors:
                return results
            time.sleep(0.05 * (attempt + 1))
        raise RuntimeError(f"typesense search failed: {errors[0]}")

    def search(self, query: ParsedQuery, sort: Sort = "relevance", offset: int = 0, limit: int = 20, *,
               with_facets: bool = True, candidate_ids: Sequence[str] | None = None,
               require_abstract: bool = False) -> BackendResult:
        self.refresh()
        compiled = self.compile(query, candidate_ids, require_abstract)
        if compiled.ignored:
            return BackendResult([], [], 0, {}, True)
        rerank = sort == "relevance" and bool(compiled.scoring)
        if rerank and not query.match_all:
            hits, total, facets = self._any_word_candidates(compiled, with_facets)
        else:
            hits, total, facets = self._candidates(compiled, sort, offset, limit, rerank, with_facets)
        if rerank:
            scores = self._bm25(compiled, hits)
            # Equal scores keep store order, as tantivy keeps insertion order.
            ranked = sorted(zip(hits, scores), key=lambda pair: (-round(pair[1], 4), pair[0]["seq"]))
            ranked = ranked[offset:offset + limit]
            papers = self._papers([hit["id"] for hit, _ in ranked])
            ranked = [(papers[hit["id"]], score) for hit, score in ranked if hit["id"] in papers]
        else:
            start = offset % TYPESENSE_PAGE
            ranked = [(document_paper(hit), 0.0) for hit in hits[start:start + limit]]
        return BackendResult([paper for paper, _ in ranked], [score for _, score in ranked], total, facets)

    def _candidates(self, compiled: Compiled, sort: Sort, offset: int, limit: int, rerank: bool,
                    with_facets: bool) -> tuple[list[dict], int, dict]:
        """Typesense's best matches: the top candidates to rescore, or the page itself."""
        depth = max(self.candidate_depth, offset + limit) if rerank else offset + limit
        first_page = 1 if rerank else offset // TYPESENSE_PAGE + 1
        hits, total, facets = [], 0, {}
        page = first_page
        while True:
            params = self._search_params(compiled, sort, page, TYPESENSE_PAGE, with_facets and page == first_page,
                                         fetch_terms=rerank)
            result = self._multi_search([params])[0]
            total = int(result["found"])
            if page == first_page and with_facets:
                facets = self._facets(result)
            page_hits = [hit["document"] for hit in result["hits"]]
            hits.extend(page_hits)
            if len(page_hits) < TYPESENSE_PAGE or page * TYPESENSE_PAGE >= depth:
                return hits, total, facets
            page += 1

    def _any_word_candidates(self, compiled: Compiled, with_facets: bool) -> tuple[list[dict], int, dict]:
        """"Any word may match": Typesense 0.24 drops query words right to left only, so one
        search per suffix of the words covers every run of them; a q-less search counts."""
        words = list(dict.fromkeys(compiled.q_terms))
        searches = [self._search_params(compiled, "relevance", 1, TYPESENSE_PAGE, False, fetch_terms=True)
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
                  "filter_by": f"id:[{','.join(_quote(paper_id) for paper_id in paper_ids)}]"}
        result = self._multi_search([params])[0]
        papers = (document_paper(hit["document"]) for hit in result["hits"])
        return {paper.id: paper for paper in papers}

    # -- BM25 ------------------------------------------------------------------------
    def _doc_freq_table(self, clauses: list[Clause]) -> dict[tuple[str, str], int]:
        wanted = {(clause.field, term) for clause in clauses for term in clause.terms}
        missing = [key for key in wanted if key not in self._doc_freqs]
        if missing:
            searches = [{"collection": self.alias, "q": "*", "per_page": 0,
                         "filter_by": f"{FIELD_TERMS[name]}:{_quote(term)}"} for name, term in missing]
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
        for document in documents:
            field_terms = {name: (document.get(FIELD_TERMS[name]) or "").split() for name in FIELD_TERMS}
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
        facets = {name: [] for name in FACET_FIELDS}
        for counted in result.get("facet_counts", []):
            values = [FacetValue(str(item["value"]), int(item["count"])) for item in counted["counts"]]
            if counted["field_name"] == "year":
                values.sort(key=lambda value: value.value, reverse=True)
            else:
                values.sort(key=lambda value: (-value.count, value.value))
            facets[counted["field_name"]] = values
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
        return [{name: highlight(getattr(paper, name)) for name in HIGHLIGHT_FIELDS} for paper in papers]
