"""What the JSON API returns: pydantic models (they are the OpenAPI schema) built from
the search layer's plain records."""

from __future__ import annotations

from typing import Literal

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
    author_ids: list[str] = Field(default=[], description="OpenReview profile ids, one per author ('' if unknown).")
    affiliations: list[str] = Field(default=[], description="One per author ('' if unknown), as the listing gives it.")
    citations: int | None = Field(default=None, description="Google Scholar count as of `citations_as_of` (null: unknown).")
    citations_as_of: str | None = Field(default=None, description="Date of the listing crawl the count comes from.")
    code_url: str | None = Field(default=None, description="GitHub / GitLab repository of the paper.")


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


class TermReadingOut(BaseModel):
    chinese: str = Field(description="A Chinese term of the query, e.g. 弱监督学习.")
    english: str = Field(description="The English phrase it was read as (empty: could not be read).")
    alternatives: list[str] = Field(description="Other readings considered, best first.")
    confidence: float = Field(0.0, description="How sure the reading is, 0-1.")
    sure: bool = Field(False, description="Shown as the reading (false: a guess, shown as 'maybe').")
    source: str = Field("composition", description="glossary, name (searched as an author), composition, "
                        "neighbours (nearest corpus phrase), bridge, chosen.")


class ReadingOut(BaseModel):
    english: str = Field(description="The query as searched in English (Latin words kept as typed).")
    terms: list[TermReadingOut]
    authors: list[str] = Field(default_factory=list, description="People the query names in Chinese, searched as authors.")


class PersonHintOut(BaseModel):
    affiliation: str | None = Field(None, description="The person's most frequent affiliation (when listings give one).")
    coauthor: str | None = Field(None, description="Their most frequent co-author.")
    venues: list[str] = Field(description="Their most frequent venues.")
    years: list[int] | None = Field(None, description="First and last year of their papers.")


class PersonNamesakeOut(BaseModel):
    name: str
    key: str = Field(description="Their author page's key (/author/{key}).")
    papers: int
    url: str
    hint: PersonHintOut


class PersonOut(BaseModel):
    name: str = Field(description="The person's most used spelling.")
    key: str = Field(description="Their author page's key (/author/{key}).")
    papers: int
    url: str
    hint: PersonHintOut | None = Field(None, description="What tells them from their namesakes (null without namesakes).")
    namesakes: list[PersonNamesakeOut] = Field(
        default_factory=list, description="Other people written the same way, most papers first (the query may mean any).")
    more_namesakes: int = Field(0, description="Namesakes beyond those listed (their author page lists them).")


class UnknownIdOut(BaseModel):
    kind: str = Field(description="arxiv, doi, openreview or url.")
    value: str
    command: str = Field(description="The command that can fetch it into this data dir.")


class IntentOut(BaseModel):
    kind: Literal["paper_id", "unknown_id", "title", "person", "none"] = Field(
        description="What the query names: a paper's id, an id no paper here has, a paper's title, a person, or "
                    "nothing in particular (venue/year words may still have been read as filters).")
    paper_id: str | None = Field(None, description="The paper an id named.")
    pinned: list[str] = Field(description="Papers listed first (those with the title the query is).")
    person: PersonOut | None = None
    unknown_id: UnknownIdOut | None = None
    filter_words: list[str] = Field(description="Words read as venue and year filters.")
    searched: str | None = Field(None, description="The words searched instead of the query (null: as typed).")


class SearchOut(BaseModel):
    query: str
    mode: str
    sort: str
    page: int
    size: int
    pages: int = Field(description="Number of pages the total fills (capped at the page limit).")
    total: int = Field(description="The papers of the result set: every page, the facets and an export list exactly these.")
    total_counts: Literal["matches", "ranked"] = Field(
        description="'matches': the papers that match the query (keyword mode). 'ranked' (semantic and hybrid modes): the "
                    "papers close enough in meaning (above the model's relevance floor) and, in hybrid mode, every paper "
                    "with all the words, each once.")
    keyword_matches: int | None = Field(
        None, description="With a ranked total: papers that have all the query's words (what keyword mode would count).")
    hits: list[HitOut]
    facets: dict[str, list[FacetValueOut]]
    took_ms: float
    notices: list[str]
    reading: ReadingOut | None = Field(
        default=None, description="A Chinese query's English reading: what was searched, with the alternatives.")
    intent: IntentOut | None = Field(
        default=None, description="What the query was read as: a paper's id or title, a person, venue/year words.")
    suggestion: str | None = Field(
        default=None, description="Did you mean: the query with misspelt words corrected (what was searched).")
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


class TopicMapOut(BaseModel):
    """Every embedded paper as parallel arrays (compact for tens of thousands of points)."""

    method: str = Field(description="The projection drawn: pca or umap.")
    stale: bool = Field(False, description="True when the vectors changed since 'papersift topics map' ran.")
    count: int = Field(description="Number of points; every array below has this length.")
    areas: list[str] = Field(description="Area names; `area` holds indexes into this list.")
    colors: list[str] = Field(description="A color per area, same order as `areas`.")
    ids: list[str]
    titles: list[str]
    x: list[float]
    y: list[float]
    area: list[int] = Field(description="Index into `areas` of each paper's area (source label, else predicted).")
    predicted: list[int] = Field(description="1 when the paper's area is predicted, 0 when it is a source label.")
    query: str | None = Field(default=None, description="The search of `q`, when given.")
    matches: list[int] | None = Field(default=None, description="Positions of the papers that match `q`.")


class TopicTrendsOut(BaseModel):
    areas: list[str]
    by_year: dict[str, dict[str, int]] = Field(description="Area -> year -> papers.")
    by_venue: dict[str, dict[str, int]] = Field(description="Area -> venue -> papers.")
    predicted: int = Field(description="How many of the papers have a predicted area.")
    papers: int
