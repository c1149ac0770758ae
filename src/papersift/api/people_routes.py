"""Author and venue JSON: /api/authors/{id-or-name}, /api/venues/{venue}[/{year}].

Read-only aggregates over the store (papersift.people); each request is a few indexed
queries, no derived file is written. The store is opened read-only once per app."""

from __future__ import annotations

import threading

from fastapi import APIRouter, Path, Request

from papersift.api.errors import ApiError
from papersift.api.people_schemas import AuthorOut, VenueOut
from papersift.api.schemas import ErrorOut
from papersift.people.profiles import AuthorNotFound, author_profile
from papersift.people.venues import VenueNotFound, venue_stats
from papersift.store import SCHEMA_VERSION, Store

router = APIRouter(prefix="/api", tags=["people"], responses={
    404: {"model": ErrorOut, "description": "No such author or venue"},
    409: {"model": ErrorOut, "description": "The store predates schema 3: run 'papersift authors build'"},
})
_open_lock = threading.Lock()


def people_store(request: Request) -> Store:
    state = request.app.state
    store = getattr(state, "people_store", None)
    if store is None:
        with _open_lock:
            store = getattr(state, "people_store", None)
            if store is None:
                try:
                    store = Store(state.settings.data_dir, readonly=True)
                except FileNotFoundError as exc:
                    raise ApiError(404, "no_store", str(exc)) from exc
                state.people_store = store
    if store.read("PRAGMA user_version")[0][0] < SCHEMA_VERSION:
        raise ApiError(409, "old_store", "the store predates author data: run 'papersift authors build'")
    return store


@router.get("/authors/{author:path}", response_model=AuthorOut, summary="An author's profile")
def get_author(request: Request, author: str = Path(max_length=300, description="Author id, OpenReview id or name")):
    return author_or_404(request, author)


@router.get("/venues/{venue}", response_model=VenueOut, summary="A venue across its years")
def get_venue(request: Request, venue: str = Path(max_length=100)):
    return venue_or_404(request, venue, None)


@router.get("/venues/{venue}/{year}", response_model=VenueOut, summary="One year of a venue")
def get_venue_year(request: Request, venue: str = Path(max_length=100), year: int = Path(ge=1900, le=2100)):
    return venue_or_404(request, venue, year)


def author_or_404(request: Request, author: str) -> dict:
    """The author's profile, or a 404 naming what was looked for (the API's answer and the page's)."""
    try:
        return author_profile(people_store(request), author)
    except AuthorNotFound as exc:
        raise ApiError(404, "author_not_found", str(exc)) from exc


def venue_or_404(request: Request, venue: str, year: int | None) -> dict:
    """The venue's (or venue-year's) statistics, or a 404 (the API's answer and the page's)."""
    try:
        return venue_stats(people_store(request), venue, year)
    except VenueNotFound as exc:
        raise ApiError(404, "venue_not_found", str(exc)) from exc
