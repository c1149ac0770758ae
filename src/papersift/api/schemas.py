"""What the JSON API returns: pydantic models (they are the OpenAPI schema) built from
the search layer's plain records."""

from __future__ import annotations

from pydantic import BaseModel, Field


class PaperOut(BaseModel):
    id: str
    title: str
    authors: list[str]
    abstract: str | None
    venue: str | None
    year: int | None
    area: str | None
    subarea: str | None
    topic: str | None = Field(description="`Area · Subarea`, as the results page shows it.")
    keywords: list[str]
    url: str | None
    pdf: str | None
    status: str | None
    track: str | None
    tldr: str | None


class HitOut(BaseModel):
    paper: PaperOut
    score: float
    highlights: dict[str, str] = Field(description="Field -> HTML-safe snippet, matched terms in <mark>.")
    topic_predicted: bool = Field(description="area/subarea come from the topic classifier.")
    topic_confidence: float | None = Field(
        default=None, description="The classifier's confidence in the predicted area · subarea (null: source label).")
    authors_line: str = Field(description="First 10 authors, then 等 / et al.")


class FacetValueOut(BaseModel):
    value: str
    count: int


class SearchOut(BaseModel):
    query: str
    mode: str
    sort: str
    page: int
    size: int
    pages: int = Field(description="Number of pages the total fills (capped at the page limit).")
    total: int
    hits: list[HitOut]
    facets: dict[str, list[FacetValueOut]]
    took_ms: float
    notices: list[str]
    lang: str


class SimilarOut(BaseModel):
    paper_id: str
    hits: list[HitOut]
    notices: list[str]


class FacetsOut(BaseModel):
    total: int
    facets: dict[str, list[FacetValueOut]]
    topics: list[dict] = Field(description="Area -> subarea tree: [{area, count, subareas: [{value, count}]}].")


class ErrorOut(BaseModel):
    error: str = Field(description="Machine-readable error code.")
    message: str = Field(description="What is wrong, for people.")
    details: list[dict] = Field(default_factory=list)
