"""A saved search as stored: the query, mode, filters and sort of a search, with a name.

Kept as plain JSON (only the values that differ from the defaults) so a saved search means the
same search after any index rebuild or upgrade; `to_request` builds the request through the
one builder the API and the page use (search.types.typed_request).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args
from urllib.parse import urlencode

from papersift.config import MAX_QUERY_CHARS
from papersift.labels import clean_label, normal_label
from papersift.record import MAX_YEAR, MIN_YEAR
from papersift.search.types import Filters, Mode, SearchRequest, Sort, typed_request

MAX_NAME_CHARS = 200
MAX_SAVED_SEARCHES = 500  # per user
MAX_FILTER_VALUES = 50
LIST_FIELDS = ("venue", "area", "subarea", "author", "status")


class FollowError(ValueError):
    """A request about saved searches, marks or tokens that cannot be done; the message says why."""


def clean_name(name: str) -> str:
    """A saved search's name as stored: NFC, one line of plain text (papersift.labels)."""
    return clean_label(name, MAX_NAME_CHARS, FollowError, "a saved search needs a name", "name")


@dataclass(frozen=True)
class SavedQuery:
    """What a saved search searches for (the page's parameters minus page, size, facets, lang)."""

    q: str = ""
    mode: str = "hybrid"
    sort: str = "relevance"
    venue: tuple[str, ...] = ()
    area: tuple[str, ...] = ()
    subarea: tuple[str, ...] = ()
    author: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    literal: bool = False

    def __post_init__(self) -> None:
        if len(self.q) > MAX_QUERY_CHARS:
            raise FollowError(f"the query has {len(self.q):,} characters, at most {MAX_QUERY_CHARS:,}")
        if self.mode not in get_args(Mode):
            raise FollowError(f"mode must be one of {', '.join(get_args(Mode))}, not {self.mode!r}")
        if self.sort not in get_args(Sort):
            raise FollowError(f"sort must be one of {', '.join(get_args(Sort))}, not {self.sort!r}")
        for name in LIST_FIELDS:
            if len(getattr(self, name)) > MAX_FILTER_VALUES:
                raise FollowError(f"{name}: at most {MAX_FILTER_VALUES} values")
        for name in ("year_from", "year_to"):
            year = getattr(self, name)
            if year is not None and not MIN_YEAR <= year <= MAX_YEAR:
                raise FollowError(f"{name} {year} is outside {MIN_YEAR}..{MAX_YEAR}")
        if self.year_from is not None and self.year_to is not None and self.year_from > self.year_to:
            raise FollowError(f"year_from ({self.year_from}) is after year_to ({self.year_to})")

    @classmethod
    def from_dict(cls, values: dict) -> SavedQuery:
        unknown = set(values) - set(cls.__dataclass_fields__)
        if unknown:
            raise FollowError(f"unknown search parameter(s): {', '.join(sorted(unknown))}")
        try:
            cleaned: dict[str, Any] = {name: tuple(str(item).strip() for item in value if str(item).strip())
                                       if name in LIST_FIELDS else value for name, value in values.items()}
            return cls(**{**cleaned, "q": str(cleaned.get("q", "")).strip()})
        except TypeError as problem:
            raise FollowError(f"bad search parameters: {problem}") from None

    def to_dict(self) -> dict:
        """Only the values that differ from the defaults (what is stored and shown)."""
        defaults = SavedQuery()
        return {name: list(value) if isinstance(value, tuple) else value
                for name in self.__dataclass_fields__ if (value := getattr(self, name)) != getattr(defaults, name)}

    def filters(self) -> Filters:
        return Filters(venues=self.venue, year_from=self.year_from, year_to=self.year_to, areas=self.area,
                       subareas=self.subarea, authors=self.author, statuses=self.status)

    def to_request(self, size: int) -> SearchRequest:
        return typed_request(self.q, self.mode, filters=self.filters(), sort=self.sort, page=1, size=size,  # type: ignore[arg-type]
                             with_facets=False, literal=self.literal)

    def query_string(self) -> str:
        """The search page's URL parameters for this search (/?...)."""
        pairs: list[tuple[str, str]] = []
        for name, value in self.to_dict().items():
            if isinstance(value, list):
                pairs.extend((name, item) for item in value)
            else:
                pairs.append((name, "true" if value is True else str(value)))
        return urlencode(pairs)


@dataclass(frozen=True)
class SavedSearch:
    id: int
    name: str
    query: SavedQuery
    created_at: float
    updated_at: float
    extra: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "search": self.query.to_dict(), "created_at": self.created_at,
                "updated_at": self.updated_at, "watch": watch_key("saved", str(self.id))}


WATCH_KINDS = ("saved", "tag", "venue", "author")


def watch_key(kind: str, key: str) -> str:
    """The stored name of something a user follows: 'saved:12', 'tag:diffusion', 'venue:ICLR',
    'author:Yoshua Bengio'."""
    if kind not in WATCH_KINDS:
        raise FollowError(f"a watch is one of {', '.join(WATCH_KINDS)}, not {kind!r}")
    key = normal_label(key)
    if not key or len(key) > 300:
        raise FollowError(f"a {kind} watch needs a name of 1 to 300 characters")
    return f"{kind}:{key}"
