"""Response models of the author and venue routes (their OpenAPI schema)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AuthorPaperOut(BaseModel):
    id: str
    title: str
    venue: str | None
    year: int | None
    status: str | None
    position: int = Field(description="1 = first author.")
    citations: int | None = Field(description="Google Scholar count as of `citations_as_of`; null: unknown.")
    citations_as_of: str | None
    code_url: str | None


class SpellingOut(BaseModel):
    name: str
    papers: int


class NamesakeOut(BaseModel):
    id: str
    papers: int


class CountOut(BaseModel):
    id: str
    name: str
    papers: int


class CoauthorLinkOut(BaseModel):
    a: str
    b: str
    papers: int = Field(description="Papers of this author that both co-authors are on.")


class VenueCountOut(BaseModel):
    venue: str
    papers: int


class AffiliationOut(BaseModel):
    affiliation: str
    papers: int


class AuthorOut(BaseModel):
    id: str | None = Field(description="Author id (OpenReview id or name slug); null before `papersift authors build`.")
    name: str
    spellings: list[SpellingOut]
    openreview_ids: list[str]
    namesakes: list[NamesakeOut] = Field(description="Other people with this spelling (when looked up by name).")
    paper_count: int
    papers_by_year: dict[str, int]
    venues: list[VenueCountOut]
    coauthors: list[CountOut]
    coauthor_links: list[CoauthorLinkOut] = Field(
        description="Pairs of the 12 most frequent co-authors who share papers of this author (the page's graph).")
    areas_by_year: dict[str, dict[str, int]] = Field(description="'Area (source)' or 'Area (predicted)' -> papers.")
    first_author_share: float
    last_author_share: float = Field(description="Among papers with two or more authors.")
    affiliations: list[AffiliationOut]
    most_cited: list[AuthorPaperOut]
    with_code: int
    papers: list[AuthorPaperOut]


class StatusShareOut(BaseModel):
    papers: int
    share: float


class AcceptanceOut(BaseModel):
    submitted: int
    accepted: int
    accepted_main: int = Field(description="Accepted minus workshop papers.")
    not_accepted: dict[str, int] = Field(description="Rejected / withdrawn submissions by status.")
    rate: float
    main_rate: float


class InstitutionOut(BaseModel):
    institution: str
    papers: int


class CitedPaperOut(BaseModel):
    id: str
    title: str
    year: int | None
    citations: int
    citations_as_of: str | None


class VenueOut(BaseModel):
    venue: str
    year: int | None
    papers: int
    papers_by_year: dict[str, int]
    status_by_year: dict[str, dict[str, StatusShareOut]]
    acceptance: dict[str, AcceptanceOut] = Field(
        description="Only for venue-years whose listings kept rejected / withdrawn submissions.")
    areas_by_year: dict[str, dict[str, int]]
    top_authors: list[CountOut]
    top_institutions: list[InstitutionOut]
    with_code: int
    with_citations: int
    most_cited: list[CitedPaperOut] = Field(description="Most cited first; papers without a count are left out.")
