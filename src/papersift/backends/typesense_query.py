"""The Typesense query compiler: a parsed query as Typesense `filter_by` clauses, `q` terms and
the BM25 clauses papersift rescores with (the embedded backend's semantics). Pure: the one
question for the cluster, whether a word is an author's name, is the `is_author` it is given,
so the I/O backend (typesense_backend.py) and the tests share one compiler."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from papersift.backends.typesense_index import TERM_FIELDS
from papersift.index.analyzers import ENGLISH, NAMES, terms
from papersift.search.backend import AUTHOR_BOOST, FIELD_BOOSTS, FILTER_FIELD_NAMES
from papersift.search.query import FieldValue, ParsedQuery, Words
from papersift.search.types import UnsupportedFilterError

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
    # Words that may match as an author's name instead: (word's terms, name term). Typesense's
    # q needs every word in one text field, so papers matching by author come from extra searches.
    author_words: list[tuple[tuple[str, ...], str]] = field(default_factory=list)


def quote(value: str) -> str:
    return "`" + value.replace("`", "") + "`"


def term_filter(field_name: str, field_terms: Sequence[str], negate: bool = False) -> str:
    operator = ":!" if negate else ":"
    joined = " && ".join(f"{field_name}{operator}{quote(term)}" for term in field_terms)
    return f"({joined})"


def _excludes_new_fields(query: ParsedQuery) -> bool:
    return any(getattr(node, "field", None) in ("has", "institutions") for node in query.excluded)


class QueryCompiler:
    """Compiles one backend's queries; `is_author(name_term)` says whether some paper has that
    author (the backend asks the cluster)."""

    def __init__(self, is_author: Callable[[str], bool]):
        self.is_author = is_author

    def _words(self, words: Words, compiled: Compiled) -> tuple[str | None, list[Clause]]:
        """A word or phrase must be in `text` (or, a plain word, be an author's name when some
        paper has that author); it scores BM25 in `text` plus a small boost for the title.
        A field-scoped word must be in that field and scores there alone. Author-name words go
        to `compiled` (this request's own record: the backend object is shared by threads)."""
        english = terms(words.text, ENGLISH)
        if not english:
            return None, []
        if words.field is not None:
            return term_filter(FIELD_TERMS[words.field], english), [Clause(words.field, tuple(english), 1.0)]
        alternatives = [Clause("text", tuple(english), FIELD_BOOSTS["text"]),
                        Clause("title", tuple(english), FIELD_BOOSTS["title"])]
        part = term_filter(MATCH_FIELD, english)
        if not words.phrase:
            names = terms(words.text, NAMES)
            if len(names) == 1 and self.is_author(names[0]):
                compiled.author_words.append((tuple(english), names[0]))
                alternatives.append(Clause("authors", (names[0],), AUTHOR_BOOST))
                part = f"({part} || {term_filter(FIELD_TERMS['authors'], names)})"
        return part, alternatives

    def _field_value(self, node: FieldValue, negate: bool = False) -> str:
        if node.field == "authors":
            return term_filter(FIELD_TERMS["authors"], terms(node.value, NAMES), negate)
        name = FILTER_FIELD_NAMES[node.field]
        return f"{name}:{'!=' if negate else '='}{quote(node.value)}"

    def _node(self, node, compiled: Compiled) -> tuple[str | None, list[Clause]]:
        if isinstance(node, Words):
            return self._words(node, compiled)
        if isinstance(node, FieldValue):
            if node.field == "authors":  # scored as a phrase in `authors`, as the embedded backend does
                names = tuple(terms(node.value, NAMES))
                return (self._field_value(node), [Clause("authors", names, 1.0)]) if names else (None, [])
            return self._field_value(node), []
        parts, alternatives = [], []
        for option in node.options:
            part, option_clauses = self._node(option, compiled)
            if part:
                parts.append(part)
                alternatives.extend(option_clauses)
        return (f"({' || '.join(parts)})" if parts else None), alternatives

    def _any_of(self, words: list[Words], compiled: Compiled) -> str | None:
        """Relaxed words: any of them in `text`, each scored by BM25 in `text` alone."""
        keys = list(dict.fromkeys(tuple(terms(word.text, ENGLISH)) for word in words))
        keys = [key for key in keys if key]
        if not keys:
            return None
        compiled.scoring.append([Clause("text", key, 1.0) for key in keys])
        compiled.q_terms.extend(term for key in keys for term in key)
        return f"({' || '.join(term_filter(MATCH_FIELD, key) for key in keys)})"

    def compile(self, query: ParsedQuery, candidate_ids: Sequence[str] | None = None,
                require_abstract: bool = False) -> Compiled:
        compiled = Compiled(match_all=query.match_all)
        strict, relaxed = query.split_required()
        dropped = 0
        for node in strict:
            part, alternatives = self._node(node, compiled)
            if part is None:
                dropped += 1
                continue
            if isinstance(node, Words):
                english = terms(node.text, ENGLISH)
                if len(english) > 1 and node.field is None:
                    compiled.phrases.append('"' + " ".join(english) + '"')
                else:
                    compiled.q_terms.extend(english)
            if alternatives:
                compiled.scoring.append(alternatives)
            compiled.filter_parts.append(part)
        if relaxed:
            part = self._any_of(relaxed, compiled)
            if part is None:
                dropped += len(relaxed)
            else:
                compiled.filter_parts.append(part)
        compiled.ignored = bool(query.required) and dropped == len(query.required)
        for node in query.excluded:
            if isinstance(node, Words):
                english = terms(node.text, ENGLISH)
                if english:
                    compiled.filter_parts.append(term_filter(MATCH_FIELD, english, negate=True))
            elif isinstance(node, FieldValue):
                compiled.filter_parts.append(self._field_value(node, negate=True))
        compiled.filter_parts.extend(self.filters(query))
        if candidate_ids is not None:
            ids = ",".join(quote(paper_id) for paper_id in candidate_ids) or "`-`"
            compiled.filter_parts.append(f"id:[{ids}]")
        if require_abstract:
            compiled.filter_parts.append("has_abstract:=true")
        return compiled

    @staticmethod
    def filters(query: ParsedQuery) -> list[str]:
        parts = []
        filters = query.filters
        unsupported = [name for name, used in (("institution:", filters.institutions), ("has:code", filters.has_code),
                                               ("tag:", filters.tags or filters.paper_ids is not None),
                                               ("-institution:/-has:", _excludes_new_fields(query))) if used]
        if unsupported:
            raise UnsupportedFilterError(f"the Typesense backend cannot filter on {', '.join(unsupported)}: "
                                         "its collection has no institution or code fields")
        for filter_name, field_name in FILTER_FIELD_NAMES.items():
            values = getattr(filters, filter_name)
            if values:
                parts.append(f"{field_name}:=[{','.join(quote(value) for value in values)}]")
        if filters.year_from is not None:
            parts.append(f"year:>={filters.year_from}")
        if filters.year_to is not None:
            parts.append(f"year:<={filters.year_to}")
        for author in filters.authors:
            names = terms(author, NAMES)
            parts.append(term_filter(FIELD_TERMS["authors"], names) if names else "id:=`-`")
        return parts
