"""The saved-search pages: /saved (the list), /saved/{id} (its papers, the new ones marked;
?new=1 shows only them) and the forms that change things (save from the search page, rename,
delete, mark as seen; web/forms.py says how they are guarded). A GET never records anything:
"seen" is only ever a POST the user sends (or the digest, for its own channel)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from papersift.api.auth import accounts_on, request_user
from papersift.api.backend import request_lang, service_of
from papersift.api.errors import ApiError
from papersift.api.params import PaperParams, SearchParams
from papersift.api.saved_routes import following_of, refused, saved_listing, saved_query
from papersift.follow.saved import FollowError, watch_key
from papersift.follow.watches import list_watch, mark_listing_seen
from papersift.i18n import Lang, page_labels
from papersift.web.forms import check_form_csrf, form_csrf, read_form, require_form_writes, writer_signed_in
from papersift.web.render import render
from papersift.web.urls import SearchState

router = APIRouter(include_in_schema=False)
LABELS = page_labels("saved")  # i18n.MESSAGES "saved.<name>"
SEARCH_FIELDS = ("q", "mode", "sort", "venue", "area", "subarea", "author", "status", "year_from", "year_to", "literal")


class SavedPageParams(PaperParams):
    new: bool = False


def form_context(request: Request) -> dict:
    """What a page needs to draw the change forms: whether the request may write and the CSRF
    token. No form asks for the write token: with accounts the session is the proof, without
    them the browser's one sign-in with the write token (web/writer_pages.py). An anonymous
    visitor of a server with accounts gets no forms; a browser not signed in on a server with
    writes on gets none either, and the pages offer the sign-in (`sign_in`)."""
    if accounts_on(request):
        if request_user(request) is None:
            return {"writes": False, "csrf": None}
    elif not request.app.state.settings.enable_writes:
        return {"writes": False, "csrf": None}
    elif not writer_signed_in(request):  # writes on, this browser not signed in: one sign-in link, no forms
        return {"writes": False, "csrf": None, "sign_in": True}
    return {"writes": True, "csrf": form_csrf(request)}


def _render(request: Request, template: str, lang: Lang, **context) -> HTMLResponse:
    return render(request, template, lang, state=SearchState(SearchParams(), lang), labels=LABELS[lang],
                  forms=form_context(request), **context)


def _back(path: str, lang: str | None) -> RedirectResponse:
    return RedirectResponse(f"{path}?lang={lang}" if lang in ("zh", "en") else path, status_code=303)


async def _checked_form(request: Request) -> dict[str, list[str]]:
    fields = await read_form(request)
    values: dict[str, list[str]] = {}
    for name, value in fields:
        values.setdefault(name, []).append(value)
    check_form_csrf(request, (values.get("csrf") or [""])[0])
    return values


def _first(values: dict[str, list[str]], name: str) -> str | None:
    return values[name][0] if values.get(name) else None


@router.get("/saved", response_class=HTMLResponse)
def saved_list_page(request: Request, params: Annotated[PaperParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    return _render(request, "saved_list.html", lang, searches=following_of(request).saved_searches())


@router.get("/saved/{saved_id}", response_class=HTMLResponse)
def saved_page(request: Request, saved_id: int, params: Annotated[SavedPageParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    following, saved, listing = saved_listing(request, saved_id)
    token = following.feed_token()
    private_feed = f"/feeds/private/{quote(token, safe='')}/saved/{saved.id}" if token else None
    return _render(request, "saved.html", lang, saved=saved, listing=listing, only_new=params.new,
                   papers=listing.new_papers if params.new else listing.papers, private_feed=private_feed)


@router.post("/saved", dependencies=[Depends(require_form_writes)])
async def save_from_page(request: Request) -> RedirectResponse:
    values = await _checked_form(request)
    try:
        search = SearchParams.model_validate({name: value if name in ("venue", "area", "subarea", "author", "status")
                                              else value[0] for name, value in values.items() if name in SEARCH_FIELDS})
    except ValidationError as problem:
        raise ApiError(422, "invalid_body", f"the search cannot be saved: {problem.errors()[0]['msg']}") from None
    name = (values.get("name") or [""])[0]

    def save():
        following = following_of(request)
        try:
            saved = following.save_search(name, saved_query(search, search.sort, search.literal))
        except FollowError as problem:
            raise refused(problem) from None
        if following.feed_token() is None:  # the saved search's page shows its private feed link at once
            following.new_feed_token()
        return saved
    saved = await run_in_threadpool(save)
    return _back(f"/saved/{saved.id}", _first(values, "lang"))


@router.post("/saved/{saved_id}/{action}", dependencies=[Depends(require_form_writes)])
async def change_from_page(request: Request, saved_id: int, action: str) -> RedirectResponse:
    if action not in ("rename", "delete", "seen", "feed"):
        raise ApiError(404, "not_found", f"no form action {action!r}")
    values = await _checked_form(request)
    lang = _first(values, "lang")

    def change() -> str:
        following = following_of(request)
        try:
            if action == "rename":
                following.rename_search(saved_id, (values.get("name") or [""])[0])
            elif action == "delete":
                following.delete_search(saved_id)
                return "/saved"
            elif action == "feed":  # a private feed link (the user's feed token) for a search saved elsewhere
                following.saved_search(saved_id)  # 404 for an unknown id
                if following.feed_token() is None:
                    following.new_feed_token()
            else:
                mark_listing_seen(following, list_watch(service_of(request), following, f"saved:{saved_id}"))
        except FollowError as problem:
            raise refused(problem) from None
        return f"/saved/{saved_id}"
    return _back(await run_in_threadpool(change), lang)


@router.post("/seen", dependencies=[Depends(require_form_writes)])
async def seen_from_page(request: Request) -> RedirectResponse:
    """"Mark as seen" on a venue, author or tag-recommendations page; back to that page."""
    values = await _checked_form(request)
    kind, key = (values.get("kind") or [""])[0], (values.get("key") or [""])[0]
    back = (values.get("back") or ["/"])[0]
    if not back.startswith("/") or back.startswith("//"):
        back = "/"  # only this site's pages: never an open redirect

    def mark() -> None:
        following = following_of(request)
        try:
            mark_listing_seen(following, list_watch(service_of(request), following, watch_key(kind, key)))
        except FollowError as problem:
            raise refused(problem) from None
    await run_in_threadpool(mark)
    return RedirectResponse(back, status_code=303)
