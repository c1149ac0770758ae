"""/api/saved-searches: the local user's saved searches (list, save, rename, delete), what is
new in one, "mark as seen" for any watch, and /api/feed-token (the private feed token).

Reads of saved searches are open like the library's on a personal server; every change, and
the feed token (a secret), go through the write gate of POST /api/papers (writes enabled and
the bearer token), checked before a byte of the body is read. Marking papers seen is a POST:
no GET changes what a user has been shown.
"""

from __future__ import annotations

from typing import Annotated, Literal, cast

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from papersift.api.backend import service_of
from papersift.api.errors import ApiError
from papersift.api.library_routes import _body_doc, _parse
from papersift.api.params import QueryParams
from papersift.api.schemas import ErrorOut
from papersift.api.writes import require_write_access, user_tables_of
from papersift.follow.saved import MAX_NAME_CHARS, FollowError, SavedQuery, SavedSearch
from papersift.follow.state import Following
from papersift.follow.watches import Listing, list_watch, mark_listing_seen

router = APIRouter(prefix="/api", tags=["saved searches"], responses={
    401: {"model": ErrorOut, "description": "Missing or wrong token (changes, the feed token)"},
    403: {"model": ErrorOut, "description": "Writes are disabled (changes, the feed token)"},
    404: {"model": ErrorOut, "description": "No such saved search"},
    422: {"model": ErrorOut, "description": "Invalid body or parameter"},
})
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]


class SearchBody(QueryParams):
    """The search page's query parameters, with the sort."""

    sort: Literal["relevance", "newest", "oldest", "cited"] = "relevance"
    literal: bool = False


class SaveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    search: SearchBody


class RenameBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name


class WatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    watch: Annotated[str, Field(min_length=3, max_length=310, description="saved:ID, tag:T, venue:V or author:NAME")]


def following_of(request: Request) -> Following:
    return user_tables_of(request, "following", Following)


def saved_query(body: QueryParams, sort: str, literal: bool = False) -> SavedQuery:
    values = {name: getattr(body, name) for name in ("q", "mode", "venue", "area", "subarea", "author", "status",
                                                       "year_from", "year_to")}
    return SavedQuery.from_dict({**values, "sort": sort, "literal": literal})


def refused(problem: FollowError) -> ApiError:
    """A refused change or lookup as the API's (and the pages') error: 404 for an unknown saved search."""
    status = 404 if str(problem).startswith("no saved search") else 422
    return ApiError(status, "not_found" if status == 404 else "invalid_change", str(problem))


def listing_json(listing: Listing, only_new: bool) -> dict:
    papers = listing.new_papers if only_new else listing.papers
    return {"watch": listing.watch, "title": listing.title, "new": len(listing.new_ids), "problem": listing.problem,
            "papers": [{"id": paper.id, "title": paper.title, "venue": paper.venue, "year": paper.year,
                        "authors": list(paper.authors[:10]), "url": paper.url, "new": paper.id in listing.new_ids}
                       for paper in papers]}


async def _write(request: Request, call):
    def run():
        try:
            return call(following_of(request))
        except FollowError as problem:
            raise refused(problem) from None
    return await run_in_threadpool(run)


@router.get("/saved-searches", summary="The saved searches, by name")
def list_saved(request: Request) -> dict:
    return {"saved_searches": [saved.to_dict() for saved in following_of(request).saved_searches()]}


@router.post("/saved-searches", summary="Save a search with a name", status_code=201,
             dependencies=[Depends(require_write_access)], openapi_extra=_body_doc(SaveBody))
async def save(request: Request) -> dict:
    body = cast(SaveBody, await _parse(request, SaveBody))
    return await _write(request, lambda following: following.save_search(
        body.name, saved_query(body.search, body.search.sort, body.search.literal)).to_dict())


@router.get("/saved-searches/{ref}", summary="A saved search with its papers; new ones flagged (new=true: only them)")
def show(request: Request, ref: Annotated[str, Path(max_length=MAX_NAME_CHARS)],
         new: Annotated[bool, Query(description="Only the papers new since the last 'seen'.")] = False) -> dict:
    _, saved, listing = saved_listing(request, ref)
    return {**saved.to_dict(), **listing_json(listing, new)}


def saved_listing(request: Request, ref: str | int) -> tuple[Following, SavedSearch, Listing]:
    """The request's user's tables, their saved search `ref` (id or name) and its papers, new
    ones flagged (the API's and the page's view of one saved search)."""
    following = following_of(request)
    try:
        saved = following.saved_search(ref)
        return following, saved, list_watch(service_of(request), following, f"saved:{saved.id}")
    except FollowError as problem:
        raise refused(problem) from None


@router.patch("/saved-searches/{ref}", summary="Rename a saved search", dependencies=[Depends(require_write_access)],
              openapi_extra=_body_doc(RenameBody))
async def rename(request: Request, ref: str) -> dict:
    body = cast(RenameBody, await _parse(request, RenameBody))
    return await _write(request, lambda following: following.rename_search(ref, body.name).to_dict())


@router.delete("/saved-searches/{ref}", summary="Delete a saved search", dependencies=[Depends(require_write_access)])
async def delete(request: Request, ref: str) -> dict:
    return await _write(request, lambda following: {"deleted": following.delete_search(ref).to_dict()})


@router.post("/seen", summary="Mark what a watch lists now as seen (saved:ID, tag:T, venue:V, author:NAME)",
             dependencies=[Depends(require_write_access)], openapi_extra=_body_doc(WatchBody))
async def seen(request: Request) -> dict:
    body = cast(WatchBody, await _parse(request, WatchBody))

    def mark(following: Following) -> dict:
        listing = list_watch(service_of(request), following, _checked_watch(body.watch))
        mark_listing_seen(following, listing)
        return {"ok": True, "watch": listing.watch, "marked": len(listing.papers), "were_new": len(listing.new_ids)}
    return await _write(request, mark)


def _checked_watch(watch: str) -> str:
    from papersift.follow.saved import watch_key

    kind, _, key = watch.partition(":")
    return watch_key(kind, key)


@router.get("/feed-token", summary="The private feed token (a secret: behind the write gate)",
            dependencies=[Depends(require_write_access)])
def get_token(request: Request) -> dict:
    return {"token": following_of(request).feed_token()}


@router.post("/feed-token", summary="Make a new private feed token (the old one stops working)",
             dependencies=[Depends(require_write_access)])
async def new_token(request: Request) -> dict:
    return await _write(request, lambda following: {"token": following.new_feed_token()})


@router.delete("/feed-token", summary="Revoke the private feed token", dependencies=[Depends(require_write_access)])
async def revoke_token(request: Request) -> dict:
    return await _write(request, lambda following: {"revoked": following.revoke_feed_token()})
