"""The query language: what users type, parsed into an AST plus structured Filters.

    graph neural networks            every word must match (ranked by BM25)
    "exact phrase"                   the words in this order
    -excluded  -"a phrase"  NOT x    must not match
    diffusion OR flow                either side (OR binds tighter than the implicit AND)
    title:transformer  title:"..."   only in the title (also keyword:, author:)
    author:"Yoshua Bengio"           an author (several author: filters must all match)
    venue:ICML  area:"Deep Learning"  subarea:...  status:oral    exact value, any case
    year:2020  year:2020..2024  year:2020..  year:..2019  year:2020-2024
    institution:"Google DeepMind"    an author's institution, exact value, any case (also affiliation:)
    has:code                         only papers with a code link (-has:code: only those without)
    tag:reading-group                papers you tagged so in your library (tag:a OR tag:b: either)

Filter fields repeated (or joined by OR) mean any of their values. A word that looks
like a field but names none (`arXiv:2101`, `10:30`) is an ordinary word. Parentheses
and other punctuation are ordinary characters. Anything the parser cannot read as
written is a QuerySyntaxError naming the position and the problem, never a guess.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache

from papersift.config import MAX_QUERY_CHARS
from papersift.record import MAX_YEAR, MIN_YEAR
from papersift.search.types import Filters, QuerySyntaxError

TEXT_FIELDS = {"title": "title", "keyword": "keywords", "keywords": "keywords"}
FILTER_FIELDS = {
    "author": "authors", "authors": "authors", "venue": "venues", "area": "areas",
    "subarea": "subareas", "status": "statuses", "year": "year",
    "institution": "institutions", "affiliation": "institutions", "has": "has", "tag": "tags",
}
HAS_VALUES = ("code",)  # what has: can ask for
YEAR_VALUE = re.compile(r"^(\d{4})?\s*(\.\.|-)?\s*(\d{4})?$")


@dataclass(frozen=True, slots=True)
class Words:
    """A typed word or quoted phrase; `field` None means the default fields."""

    text: str
    phrase: bool = False
    field: str | None = None  # "title" | "keywords"
    # what its match adds to a paper's score, times this (a reading's alternative phrases: < 1)
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class FieldValue:
    """An exact value of a filter field (authors, venues, areas, subareas, statuses)."""

    field: str
    value: str


@dataclass(frozen=True, slots=True)
class AnyOf:
    options: tuple[Node, ...]


Node = Words | FieldValue | AnyOf


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    required: tuple[Node, ...] = ()
    excluded: tuple[Node, ...] = ()
    filters: Filters = field(default_factory=Filters)
    # Plain words: "all" must match (the query language), or "any" (natural text, ranked by
    # BM25; also the fallback when no paper has all the words).
    match: str = "all"

    @property
    def has_text(self) -> bool:
        return bool(self.required)

    @property
    def match_all(self) -> bool:
        return self.match == "all"

    def relaxed(self, match: str = "any") -> ParsedQuery:
        return replace(self, match=match)

    def split_required(self) -> tuple[list[Node], list[Words]]:
        """The required nodes that must each match, and the plain words of which any may (in
        "any" mode: unfielded, unquoted words); every engine compiles the two apart."""
        strict: list[Node] = []
        relaxed: list[Words] = []
        for node in self.required:
            if not self.match_all and isinstance(node, Words) and node.field is None and not node.phrase:
                relaxed.append(node)
            else:
                strict.append(node)
        return strict, relaxed

    def with_filters(self, filters: Filters) -> ParsedQuery:
        return replace(self, filters=merge_filters(self.filters, filters))


YearRange = tuple[int | None, int | None]
FilterTerm = tuple[str, str | YearRange]  # (filter field, value); only year's value is a range


@dataclass(slots=True)
class _Item:
    node: Node | FilterTerm  # a text node, or (filter field, value)
    negated: bool
    position: int


def query_text(query: ParsedQuery) -> str:
    """The words and phrases a user typed, without operators and filters (what gets embedded,
    or carried over to English)."""
    parts: list[str] = []

    def visit(node) -> None:
        if isinstance(node, Words):
            parts.append(node.text)
        elif isinstance(node, AnyOf):
            for option in node.options:
                visit(option)

    for node in query.required:
        visit(node)
    return " ".join(parts).strip()


def natural_text_query(text: str) -> ParsedQuery:
    """Benchmark queries and pasted paragraphs: no operators, any word may match."""
    words = tuple(Words(word) for word in _clean(text).split())
    return ParsedQuery(required=words, match="any")


PARSED_KEPT = 1024  # query texts whose parse is remembered (parsing is pure; a ParsedQuery is immutable)


@lru_cache(maxsize=PARSED_KEPT)
def parse_query(text: str) -> ParsedQuery:
    """Parse the query language; raises QuerySyntaxError with the 0-based position.
    Remembered per text (a page parses its query once; its facet counts and topic tree again)."""
    if len(text) > MAX_QUERY_CHARS:
        raise QuerySyntaxError(f"query is {len(text):,} characters long (limit {MAX_QUERY_CHARS:,})", MAX_QUERY_CHARS)
    groups = _or_groups(list(_scan(_clean(text))))
    required: list[Node] = []
    excluded: list[Node] = []
    filter_values: dict[str, list] = {}
    for group in groups:
        if len(group) == 1:
            item = group[0]
            if isinstance(item.node, tuple):
                name, value = item.node
                if item.negated:
                    if name == "year" or not isinstance(value, str):
                        raise QuerySyntaxError("a year cannot be excluded; use a range like year:2015..2019", item.position)
                    if name == "tags":
                        raise QuerySyntaxError("a tag cannot be excluded; tag:NAME searches inside your library",
                                               item.position)
                    excluded.append(FieldValue(name, value))
                else:
                    filter_values.setdefault(name, []).append((value, item.position))
            else:
                (excluded if item.negated else required).append(item.node)
            continue
        _add_or_group(group, required, filter_values)
    return ParsedQuery(tuple(required), tuple(excluded), _filters_from(filter_values))


def merge_filters(first: Filters, second: Filters) -> Filters:
    """Both sets apply: value lists are united per field, year ranges intersected."""
    def unite(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a + b))

    years_from = [y for y in (first.year_from, second.year_from) if y is not None]
    years_to = [y for y in (first.year_to, second.year_to) if y is not None]
    return Filters(
        venues=unite(first.venues, second.venues),
        year_from=max(years_from) if years_from else None,
        year_to=min(years_to) if years_to else None,
        areas=unite(first.areas, second.areas),
        subareas=unite(first.subareas, second.subareas),
        authors=unite(first.authors, second.authors),
        statuses=unite(first.statuses, second.statuses),
        institutions=unite(first.institutions, second.institutions),
        has_code=first.has_code or second.has_code,
        tags=unite(first.tags, second.tags),
        paper_ids=(first.paper_ids if second.paper_ids is None else second.paper_ids if first.paper_ids is None
                   else first.paper_ids & second.paper_ids),
    )


def _clean(text: str) -> str:
    # Control and format characters become spaces so positions still point at what was typed.
    if text.isprintable():  # C-speed check: a printable text has none of them (most queries)
        return text
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)


def _scan(text: str):
    """Yield _Item or the operator strings 'OR' (with position) as (op, position)."""
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if char.isspace():
            position += 1
            continue
        start = position
        negated = False
        if char == "-" and position + 1 < length and not text[position + 1].isspace():
            negated, position = True, position + 1
        if text.startswith('"', position):
            phrase, position = _read_phrase(text, position)
            yield _Item(Words(phrase, phrase=True), negated, start)
            continue
        end = position
        while end < length and not text[end].isspace() and text[end] != '"':
            end += 1
        word = text[position:end]
        if word in ("OR", "AND", "NOT") and not negated:
            yield (word, start)
            position = end
            continue
        name, colon, value = word.partition(":")
        key = name.lower()
        if colon and (key in TEXT_FIELDS or key in FILTER_FIELDS):
            value_start = position + len(name) + 1
            if not value and text.startswith('"', end):
                value, end = _read_phrase(text, end)
                quoted = True
            else:
                quoted = False
            if not value.strip():
                raise QuerySyntaxError(f"'{name}:' needs a value, like {name}:{_EXAMPLES[key]}", start)
            if key in TEXT_FIELDS:
                yield _Item(Words(value, phrase=quoted, field=TEXT_FIELDS[key]), negated, start)
            elif key == "year":
                yield _Item(("year", _year_range(value, value_start)), negated, start)
            elif key == "has":
                if value.strip().lower() not in HAS_VALUES:
                    raise QuerySyntaxError(f"has: takes {', '.join(HAS_VALUES)}, not '{value}'", value_start)
                yield _Item(("has", value.strip().lower()), negated, start)
            else:
                yield _Item((FILTER_FIELDS[key], value.strip()), negated, start)
            position = end
            continue
        if word.strip("-"):
            yield _Item(Words(word), negated, start)
        position = end


_EXAMPLES = {
    "title": "transformer", "keyword": "robustness", "keywords": "robustness", "author": '"Yoshua Bengio"',
    "authors": '"Yoshua Bengio"', "venue": "ICML", "area": '"Deep Learning"', "subarea": "Algorithms",
    "status": "oral", "year": "2020..2024", "institution": '"Google DeepMind"', "affiliation": "MIT",
    "has": "code", "tag": "reading-group",
}


def _read_phrase(text: str, quote_at: int) -> tuple[str, int]:
    closing = text.find('"', quote_at + 1)
    if closing < 0:
        raise QuerySyntaxError('unclosed quote: add the closing " or remove this one', quote_at)
    phrase = text[quote_at + 1:closing]
    if not phrase.strip():
        raise QuerySyntaxError("empty phrase: put words between the quotes", quote_at)
    return phrase, closing + 1


def _year_range(value: str, position: int) -> YearRange:
    match = YEAR_VALUE.match(value.strip())
    if not match or not (match.group(1) or match.group(3)) or (match.group(1) and match.group(3) and not match.group(2)):
        raise QuerySyntaxError(f"year must look like 2020, 2020..2024, 2020.. or ..2024, not '{value}'", position)
    low = int(match.group(1)) if match.group(1) else None
    high = int(match.group(3)) if match.group(3) else None
    if not match.group(2):
        high = low
    for year in (low, high):
        if year is not None and not MIN_YEAR <= year <= MAX_YEAR:
            raise QuerySyntaxError(f"year {year} is outside {MIN_YEAR}..{MAX_YEAR}", position)
    if low is not None and high is not None and low > high:
        raise QuerySyntaxError(f"year range {low}..{high} is reversed; write {high}..{low}", position)
    return low, high


def _or_groups(tokens: list) -> list[list[_Item]]:
    """Join items around OR into groups; drop AND (it is the default); apply NOT."""
    groups: list[list[_Item]] = []
    joining_or: int | None = None
    negate_next: int | None = None
    for token in tokens:
        if isinstance(token, tuple):
            operator, position = token
            if operator == "AND":
                if not groups or joining_or is not None or negate_next is not None:
                    raise QuerySyntaxError("AND needs a term on both sides", position)
                continue
            if operator == "NOT":
                if negate_next is not None:
                    raise QuerySyntaxError("NOT must be followed by a term", negate_next)
                negate_next = position
                continue
            if not groups or joining_or is not None or negate_next is not None:
                raise QuerySyntaxError("OR needs a term on both sides", position)
            joining_or = position
            continue
        if negate_next is not None:
            token.negated, token.position, negate_next = True, negate_next, None
        if joining_or is not None:
            if token.negated or groups[-1][-1].negated:
                raise QuerySyntaxError("OR cannot join an excluded term; exclude each side separately", joining_or)
            groups[-1].append(token)
            joining_or = None
        else:
            groups.append([token])
    if joining_or is not None:
        raise QuerySyntaxError("OR needs a term on both sides", joining_or)
    if negate_next is not None:
        raise QuerySyntaxError("NOT must be followed by a term", negate_next)
    return groups


def _add_or_group(group: list[_Item], required: list[Node], filter_values: dict[str, list]) -> None:
    nodes = [item.node for item in group if not isinstance(item.node, tuple)]
    terms = [(item.node, item.position) for item in group if isinstance(item.node, tuple)]
    if not terms:
        required.append(AnyOf(tuple(nodes)))
        return
    filter_names = {name for (name, _), _ in terms}
    if len(filter_names) > 1 or nodes:
        raise QuerySyntaxError("OR can join words and phrases, or values of one filter field, not a mix", group[1].position)
    name = filter_names.pop()
    values = [value for (_, value), _ in terms if isinstance(value, str)]  # only a year's value is a range
    if name == "year" or len(values) != len(terms):
        raise QuerySyntaxError("years cannot be joined with OR; use a range like year:2018..2020", group[1].position)
    if name == "authors":  # Filters.authors means all of them; an OR of authors stays in the query
        required.append(AnyOf(tuple(FieldValue("authors", value) for value in values)))
        return
    for (_, value), position in terms:
        filter_values.setdefault(name, []).append((value, position))


def _filters_from(filter_values: dict[str, list]) -> Filters:
    def values(name: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(value for value, _ in filter_values.get(name, ())))

    year_from = year_to = None
    for (low, high), position in filter_values.get("year", ()):
        year_from = low if year_from is None else max(year_from, low or year_from)
        year_to = high if year_to is None else min(year_to, high or year_to)
        if year_from is not None and year_to is not None and year_from > year_to:
            raise QuerySyntaxError("these year filters leave no year at all", position)
    return Filters(
        venues=values("venues"), year_from=year_from, year_to=year_to, areas=values("areas"),
        subareas=values("subareas"), authors=values("authors"), statuses=values("statuses"),
        institutions=values("institutions"), has_code="code" in values("has"), tags=values("tags"),
    )
