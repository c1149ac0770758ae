"""Query parameters of the search API and the page: one model, validated once, shared.

Both /api/search and the page at / read the same parameters, so every page state is a
URL that the API understands too. Unknown parameters are rejected (extra="forbid").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from papersift.config import DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, MAX_QUERY_CHARS
from papersift.export import EXPORT_FORMATS
from papersift.record import MAX_YEAR, MIN_YEAR
from papersift.search.types import Filters, SearchRequest, typed_request

MAX_FILTER_VALUES = 50
MAX_EXPORT_IDS = 1000
FILTER_PARAMS = ("venue", "area", "subarea", "author", "status", "institution")


class QueryParams(BaseModel):
    """What to search for: the query and the structured filters."""

    model_config = ConfigDict(extra="forbid")

    q: str = Field("", max_length=MAX_QUERY_CHARS, description="Query: words, \"phrases\", -excluded, OR, field:value filters.")
    mode: Literal["hybrid", "keyword", "semantic"] = Field("hybrid", description="Ranking: lexical, dense, or both fused.")
    venue: list[str] = Field([], max_length=MAX_FILTER_VALUES, description="Only these venues (repeatable).")
    year_from: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR, description="Earliest year (inclusive).")
    year_to: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR, description="Latest year (inclusive).")
    area: list[str] = Field([], max_length=MAX_FILTER_VALUES, description="Only these areas (repeatable).")
    subarea: list[str] = Field([], max_length=MAX_FILTER_VALUES, description="Only these subareas (repeatable).")
    author: list[str] = Field([], max_length=MAX_FILTER_VALUES, description="Only papers by these authors (repeatable).")
    status: list[str] = Field([], max_length=MAX_FILTER_VALUES, description="Only these statuses, e.g. Oral (repeatable).")
    institution: list[str] = Field([], max_length=MAX_FILTER_VALUES,
                                   description="Only papers with an author at one of these institutions (repeatable).")
    has_code: bool = Field(False, description="Only papers with a code link.")

    @field_validator("year_from", "year_to", mode="before")
    @classmethod
    def _blank_is_unset(cls, value):
        # An empty form field (year_from=) means "no bound", not a bad number.
        return None if value == "" else value

    @field_validator(*FILTER_PARAMS, mode="after")
    @classmethod
    def _drop_blank_values(cls, values: list[str]) -> list[str]:
        return [value.strip() for value in values if value.strip()]

    @model_validator(mode="after")
    def _years_in_order(self):
        if self.year_from is not None and self.year_to is not None and self.year_from > self.year_to:
            raise ValueError(f"year_from ({self.year_from}) is after year_to ({self.year_to})")
        return self

    def filters(self) -> Filters:
        return Filters(
            venues=tuple(self.venue),
            year_from=self.year_from,
            year_to=self.year_to,
            areas=tuple(self.area),
            subareas=tuple(self.subarea),
            authors=tuple(self.author),
            statuses=tuple(self.status),
            institutions=tuple(self.institution),
            has_code=self.has_code,
        )

    def to_request(self, **overrides) -> SearchRequest:
        values: dict[str, object] = {"filters": self.filters()}
        values.update(overrides)
        return typed_request(self.q, self.mode, **values)  # the builder `papersift eval` uses too


class FacetParams(QueryParams):
    """Facet counts for a query, or for the whole corpus when q and the filters are empty."""

    mode: Literal["hybrid", "keyword", "semantic"] = Field("keyword", description="Ranking mode used to match q.")


class SearchParams(QueryParams):
    """A search, which page of it, and in which interface language."""

    sort: Literal["relevance", "newest", "oldest", "cited"] = "relevance"
    page: int = Field(1, ge=1, le=MAX_PAGE, description=f"1-based page, at most {MAX_PAGE}.")
    size: int = Field(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE, description=f"Hits per page, at most {MAX_PAGE_SIZE}.")
    lang: Literal["zh", "en"] | None = Field(None, description="Interface language; default from Accept-Language.")
    facets: bool = Field(True, description="Include facet counts.")
    literal: bool = Field(False, description="Search the words as typed: no English reading of Chinese words, and no "
                                             "reading of titles, names, ids, venue/year words or misspellings.")
    gloss: bool = Field(False, description="Page only: show the Chinese gloss of each hit's matched terms.")

    @field_validator("lang", mode="before")
    @classmethod
    def _blank_lang_is_unset(cls, value):
        return None if value == "" else value

    def to_request(self, **overrides) -> SearchRequest:
        values: dict[str, object] = {
            "sort": self.sort, "page": self.page, "size": self.size, "with_facets": self.facets, "literal": self.literal,
        }
        values.update(overrides)
        return super().to_request(**values)


class SimilarParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int = Field(10, ge=1, le=MAX_PAGE_SIZE, description=f"How many similar papers, at most {MAX_PAGE_SIZE}.")
    lang: Literal["zh", "en"] | None = None


class PaperParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lang: Literal["zh", "en"] | None = None


class ExportParams(SearchParams):
    """Either `ids` (comma-separated or repeated) or a search whose results are exported."""

    ids: list[str] = Field([], max_length=MAX_EXPORT_IDS, description=(
        f"Paper ids, one per `ids=` (repeat it; at most {MAX_EXPORT_IDS}). A value that is no paper's id "
        "is read as comma-separated ids."))
    format: Literal[EXPORT_FORMATS] = Field("bibtex", description="bibtex, json, csv, ris or csl-json.")  # type: ignore[valid-type]

    @field_validator("ids", mode="after")
    @classmethod
    def _drop_blank_ids(cls, values: list[str]) -> list[str]:
        # Splitting on commas needs the service (is "a,b" one id?): api.backend.resolve_export_ids.
        return [value.strip() for value in values if value.strip()]
