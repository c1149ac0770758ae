"""The plain records that flow through search: what is asked, and what comes back.

The CLI, the HTTP API and the web page build a SearchRequest and render a
SearchResponse; they never talk to an index directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeGuard, get_args

from papersift.config import DEFAULT_PAGE_SIZE
from papersift.record import Paper
from papersift.slotted import frozen_maker

Mode = Literal["keyword", "semantic", "hybrid"]
Sort = Literal["relevance", "newest", "oldest", "cited"]  # cited: most cited first, unknown counts last
MODES: tuple[Mode, ...] = get_args(Mode)
SORTS: tuple[Sort, ...] = get_args(Sort)


def is_mode(value: str) -> TypeGuard[Mode]:
    """Whether a typed --mode names a mode (the CLI checks, then passes it on as a Mode)."""
    return value in MODES


def is_sort(value: str) -> TypeGuard[Sort]:
    return value in SORTS

# What SearchResponse.total counts: the papers that match (keyword mode, and any filters-only
# browse), or "ranked" (semantic and hybrid modes): the papers close enough in meaning (above
# the model's relevance floor, search/semantic.py) and, in hybrid mode, every paper that has
# all the words (keyword_matches of them), each once; pages and exports list exactly these.
TotalCounts = Literal["matches", "ranked"]
LABEL_FACET_FIELDS = ("venue", "year", "area", "subarea", "status")  # what every backend counts
# code: one value, "yes" (the paper has a code link). These six come from facet-key codes
# (search/facets.py); `institution` (several per paper) from a terms aggregation.
FACET_FIELDS = (*LABEL_FACET_FIELDS, "code")
INSTITUTION_FACET = "institution"


@dataclass(frozen=True, slots=True)
class Filters:
    """Structured filters; the query language's field filters end up here too."""

    venues: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    areas: tuple[str, ...] = ()
    subareas: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    institutions: tuple[str, ...] = ()  # any of them (exact value, any case)
    has_code: bool = False  # only papers with a code link
    tags: tuple[str, ...] = ()  # `tag:NAME`: papers the user tagged NAME (any of them)
    # The tags' papers, resolved by the interface from the request's user's library (the search
    # layer cannot read it); None: no tag filter. Applied as a filter of paper ids.
    paper_ids: frozenset[str] | None = None

    def is_empty(self) -> bool:
        return self == Filters()


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str = ""
    mode: Mode = "hybrid"
    filters: Filters = field(default_factory=Filters)
    sort: Sort = "relevance"
    page: int = 1
    size: int = DEFAULT_PAGE_SIZE
    like_text: str | None = None  # "find papers like this paragraph"
    like_id: str | None = None  # "similar papers" to a stored paper
    with_facets: bool = True
    literal: bool = False  # Chinese words searched as typed: no English reading


def typed_request(text: str, mode: Mode = "hybrid", **values) -> SearchRequest:
    """The request for a query as a person types it: the one builder of /api/search, the page
    and `papersift eval`, so that eval ranks exactly what users get."""
    return SearchRequest(query=text.strip(), mode=mode, **values)


@dataclass(frozen=True, slots=True)
class Hit:
    paper: Paper
    score: float
    # field name -> HTML-safe snippet: text escaped, matched terms wrapped in <mark>.
    highlights: dict[str, str] = field(default_factory=dict)
    topic_predicted: bool = False  # area/subarea come from the topic classifier
    topic_confidence: float | None = None  # the classifier's confidence in that area · subarea


def _hit_maker() -> Callable[[Paper, float, dict[str, str]], Hit]:
    """Hit(paper, score, highlights) at about half its cost (slotted.frozen_maker; a result page
    makes 20), the other fields at their defaults; Hit itself when the maker cannot make what
    Hit's __init__ makes (a __post_init__, a field it does not know)."""
    return frozen_maker(Hit, 3) or Hit


hit_of = _hit_maker()


@dataclass(frozen=True, slots=True)
class FacetValue:
    value: str
    count: int


@dataclass(frozen=True, slots=True)
class SearchResponse:
    request: SearchRequest
    total: int
    hits: list[Hit]
    facets: dict[str, list[FacetValue]] = field(default_factory=dict)
    took_ms: float = 0.0
    notices: list[str] = field(default_factory=list)  # e.g. "semantic index covers 40% of papers"
    total_counts: TotalCounts = "matches"
    keyword_matches: int | None = None  # with a ranked total: papers that have all the query's words
    # A Chinese query's English reading (search/termlexicon.py QueryReading): what was searched
    reading: object | None = None
    # What the query was read as (search/intent.py Intent: a paper's id or title, a person,
    # venue/year words), None for a plain search
    intent: object | None = None
    suggestion: str | None = None  # "did you mean": the query with misspelt words corrected


class UnsupportedFilterError(ValueError):
    """A filter this search backend cannot apply (the Typesense backend: institution, has:code)."""


class QuerySyntaxError(ValueError):
    """A query the parser rejects; position is the 0-based character offset of the problem."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} (at character {position + 1})")
        self.problem = message
        self.position = position
