"""One sign-in per browser on a personal server (no accounts, writes on): the write token typed
once at /signin, or carried by the link `quickstart` prints (`/signin?token=...`, the way local
notebook servers hand out their URL), sets the writer cookie (web/forms.writer_proof: an HMAC of
the token, HttpOnly, SameSite=Lax); from then on this browser's forms need no token field. Every
form still carries its CSRF token. /signout (a POST with the CSRF token) forgets the cookie.
Mounted only on a server without accounts (with accounts the login session is the writer)."""

from __future__ import annotations

import hmac
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from papersift.api.backend import request_lang
from papersift.api.errors import ApiError
from papersift.api.params import PaperParams, SearchParams
from papersift.i18n import Lang, in_every_lang, page_labels
from papersift.web.forms import (
    WRITER_COOKIE,
    check_form_csrf,
    form_csrf,
    read_fields,
    writer_proof,
    writer_signed_in,
)
from papersift.web.render import render
from papersift.web.urls import SearchState, local_path

router = APIRouter(include_in_schema=False)
WRITER_COOKIE_AGE_S = 90 * 24 * 3600  # a new write token (each quickstart) signs every browser out anyway
LABELS = page_labels("writer")  # i18n.MESSAGES "writer.<name>"


class SignInParams(PaperParams):
    token: Annotated[str | None, Field(max_length=1000)] = None
    next: Annotated[str | None, Field(max_length=2000)] = None


def _writes_without_accounts(request: Request) -> bool:
    settings = request.app.state.settings
    return settings.enable_writes and not settings.accounts


def writer_link(request: Request) -> tuple[str, dict[str, str]] | None:
    """The header's sign-in link on a server with writes and without accounts."""
    if not _writes_without_accounts(request):
        return None
    key = "signed_in" if writer_signed_in(request) else "sign_in"
    return "/signin", in_every_lang(f"writer.{key}")


HINT_PAGES = ("/", "/library", "/library/recommend", "/saved")  # and /saved/N, /paper/X/similar: pages with forms


def sign_in_hint(request: Request, lang: Lang) -> tuple[str, str] | None:
    """(text, sign-in URL that comes back here) on a page with change forms, for a browser not
    signed in on a server with writes: one line instead of a token field in every form."""
    path = request.url.path
    if not _writes_without_accounts(request) or writer_signed_in(request):
        return None
    if path not in HINT_PAGES and not path.startswith("/saved/") and not path.endswith("/similar"):
        return None
    here = path + (f"?{request.url.query}" if request.url.query else "")
    return LABELS[lang]["hint"], "/signin?" + urlencode({"next": here, "lang": lang})


def _token_matches(request: Request, token: str) -> bool:
    expected = request.app.state.settings.write_token
    return bool(expected) and hmac.compare_digest(token.encode(), expected.encode())


def _signed_in(request: Request, target: str) -> Response:
    response = RedirectResponse(local_path(target), status_code=303)
    response.set_cookie(WRITER_COOKIE, writer_proof(request.app.state.settings.write_token), max_age=WRITER_COOKIE_AGE_S,
                        httponly=True, samesite="lax", secure=request.app.state.settings.secure_cookies
                        or request.url.scheme == "https")
    return response


def _page(request: Request, lang: Lang, status: int = 200, problem: str | None = None, target: str = "/") -> HTMLResponse:
    settings = request.app.state.settings
    return render(request, "signin.html", lang, status=status, state=SearchState(SearchParams(), lang),
                  labels=LABELS[lang], writes=settings.enable_writes, signed_in=writer_signed_in(request),
                  csrf=form_csrf(request) if settings.enable_writes else None, problem=problem, next=local_path(target))


@router.get("/signin", response_class=HTMLResponse)
def signin_page(request: Request, params: Annotated[SignInParams, Query()]) -> Response:
    """The sign-in form; with `?token=` (the link quickstart prints) the sign-in itself."""
    lang = request_lang(request, params.lang)
    target = params.next or f"/?lang={lang}"
    if params.token is not None and request.app.state.settings.enable_writes:
        if _token_matches(request, params.token):
            return _signed_in(request, target)
        return _page(request, lang, 401, LABELS[lang]["wrong"], target)
    return _page(request, lang, target=target)


@router.post("/signin", response_class=HTMLResponse)
async def signin_form(request: Request) -> Response:
    values = dict(await read_fields(request))
    lang: Lang = "zh" if values.get("lang") == "zh" else "en"
    if not request.app.state.settings.enable_writes:
        raise ApiError(403, "writes_disabled", LABELS[lang]["read_only"])
    check_form_csrf(request, values.get("csrf", ""))
    target = values.get("next") or f"/?lang={lang}"
    if not _token_matches(request, values.get("token", "")):
        return _page(request, lang, 401, LABELS[lang]["wrong"], target)
    return _signed_in(request, target)


@router.post("/signout")
async def signout(request: Request) -> Response:
    values = dict(await read_fields(request))
    check_form_csrf(request, values.get("csrf", ""))
    lang = "zh" if values.get("lang") == "zh" else "en"
    response = RedirectResponse(f"/signin?lang={lang}", status_code=303)
    response.delete_cookie(WRITER_COOKIE, httponly=True, samesite="lax")
    return response
