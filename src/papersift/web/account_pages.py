"""The account pages of a server with accounts (`serve --accounts`, docs/accounts.md): log in,
log out, sign up by invitation, and the account page (API tokens, password). Mounted only with
accounts. Plain HTML forms that work without JavaScript; every one carries a CSRF token:
* logged in: signed by the key of the login session (web/forms.form_key), so it dies at logout;
* the login and sign-up forms (no session yet): signed for a random pre-login cookie, so
  another site cannot log a browser into an account of its choosing (login CSRF).

Cookies are HttpOnly and SameSite=Lax: Lax, not Strict, so that a link from a mail digest or a
feed reader to /saved/3 arrives logged in; every change is a POST with a CSRF token, which Lax
never sends from another site. Secure when the request came over https or --secure-cookies.
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from papersift.accounts.passwords import MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS
from papersift.accounts.users import SESSION_TTL_S, AccountError, WrongPassword, digest
from papersift.api.auth import ANONYMOUS, SESSION_COOKIE, accounts_on, request_user, require_user
from papersift.api.backend import request_lang
from papersift.api.errors import ApiError
from papersift.api.params import PaperParams, SearchParams
from papersift.api.writes import tables_for
from papersift.follow.state import Following
from papersift.i18n import Lang, in_every_lang, page_labels
from papersift.web.forms import check_csrf, check_form_csrf, csrf_token, form_csrf, read_fields, require_form_writes
from papersift.web.render import render
from papersift.web.urls import SearchState, local_path

router = APIRouter(include_in_schema=False)
LOGIN_COOKIE = "papersift_login"  # random, binds the login / sign-up forms' CSRF token to this browser
LABELS = page_labels("account")  # i18n.MESSAGES "account.<name>"


class LoginParams(PaperParams):
    next: Annotated[str, Field(max_length=2000)] = "/"


class SignupParams(PaperParams):
    invite: Annotated[str, Field(max_length=100)] = ""


def nav_link(request: Request) -> tuple[str, dict[str, str]] | None:
    """The header's account link: the account page (with the name) or the login form."""
    if not accounts_on(request):
        return None
    user = request_user(request)
    if user is None:
        return "/login", in_every_lang("account.login")
    return "/account", {lang: f"{labels['account']} ({user.user_id})" for lang, labels in LABELS.items()}


def _install_key(request: Request) -> str | None:
    return tables_for(request, Following, ANONYMOUS).csrf_key()


def _secure(request: Request) -> bool:
    return request.app.state.settings.secure_cookies or request.url.scheme == "https"


def _render(request: Request, template: str, lang: Lang, status: int = 200, **context) -> HTMLResponse:
    return render(request, template, lang, status=status, state=SearchState(SearchParams(), lang),
                  labels=LABELS[lang], password_chars=(MIN_PASSWORD_CHARS, MAX_PASSWORD_CHARS), **context)


def _pre_login_form(request: Request, template: str, lang: Lang, status: int = 200, **context) -> HTMLResponse:
    """A login or sign-up form with its CSRF token bound to the pre-login cookie (set when missing)."""
    browser = request.cookies.get(LOGIN_COOKIE) or ""
    if not 20 <= len(browser) <= 100:
        browser = secrets.token_urlsafe(24)
    response = _render(request, template, lang, status, csrf=csrf_token(_install_key(request), f"login:{digest(browser)}"),
                       **context)
    response.set_cookie(LOGIN_COOKIE, browser, max_age=24 * 3600, httponly=True, samesite="lax", secure=_secure(request))
    return response


async def _pre_login_fields(request: Request) -> dict[str, str]:
    values = dict(await read_fields(request))
    check_csrf(_install_key(request), values.get("csrf", ""), f"login:{digest(request.cookies.get(LOGIN_COOKIE, ''))}")
    return values


def _logged_in(request: Request, user_id: str, target: str) -> Response:
    session_id = request.app.state.accounts.start_session(user_id, user_agent=request.headers.get("user-agent", "")[:1000])
    response = RedirectResponse(local_path(target), status_code=303)
    response.set_cookie(SESSION_COOKIE, session_id, max_age=SESSION_TTL_S, httponly=True, samesite="lax",
                        secure=_secure(request))
    return response


def _lang_of(value: str | None) -> Lang:
    return "zh" if value == "zh" else "en"


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, params: Annotated[LoginParams, Query()]) -> HTMLResponse:
    return _pre_login_form(request, "login.html", request_lang(request, params.lang), next=local_path(params.next),
                           problem=None, name="")


def _guess_allowed(request: Request, account: str) -> str:
    """Before a password is looked at (login, change password): past the limits of wrong
    passwords per account or per client address (accounts/ratelimit.py), 429 with Retry-After,
    right password or not; else the attempt is counted now, so parallel guesses cannot all pass
    while argon2 runs (the caller takes it back with succeeded() when the password was right);
    the client address it was counted under.
    Both forms share one limiter: a guess at a password counts the same through either."""
    address = request.client.host if request.client else "-"
    refusal = request.app.state.login_limiter.attempt(account, address)
    if refusal is not None:
        raise ApiError(429, "too_many_logins", f"too many wrong passwords: try again in {refusal.retry_after_s} s",
                       headers={"Retry-After": str(refusal.retry_after_s)})
    return address


@router.post("/login")
async def login(request: Request) -> Response:
    """Rate limited per account and per client address before the password is looked at
    (accounts/ratelimit.py): past the limit, 429 with Retry-After, right password or not."""
    values = await _pre_login_fields(request)
    lang, name, target = _lang_of(values.get("lang")), values.get("name", "")[:200], values.get("next", "/")
    account = name.strip().lower()
    address = _guess_allowed(request, account)
    limiter = request.app.state.login_limiter
    user_id = await run_in_threadpool(request.app.state.accounts.check_password, name, values.get("password", ""))
    if user_id is None:
        return _pre_login_form(request, "login.html", lang, 401, next=local_path(target),
                               problem=LABELS[lang]["wrong_login"], name=name)
    limiter.succeeded(account, address)
    return await run_in_threadpool(_logged_in, request, user_id, target)


@router.get("/signup", response_class=HTMLResponse)
def signup_page(request: Request, params: Annotated[SignupParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    valid = request.app.state.accounts.invitation_valid(params.invite)
    return _pre_login_form(request, "signup.html", lang, 200 if valid else 404, invite=params.invite,
                           problem=None if valid else LABELS[lang]["invite_invalid"], name="")


@router.post("/signup")
async def signup(request: Request) -> Response:
    values = await _pre_login_fields(request)
    lang, name, invite = _lang_of(values.get("lang")), values.get("name", "")[:200], values.get("invite", "")[:100]
    if values.get("password", "") != values.get("password_again", ""):
        return _pre_login_form(request, "signup.html", lang, 422, invite=invite, problem=LABELS[lang]["mismatch"], name=name)
    try:
        user = await run_in_threadpool(request.app.state.accounts.sign_up, invite, name, values.get("password", ""))
    except AccountError as problem:
        return _pre_login_form(request, "signup.html", lang, 422, invite=invite, problem=str(problem), name=name)
    return await run_in_threadpool(_logged_in, request, user.user_id, f"/account?lang={lang}")


class ResetParams(PaperParams):
    token: Annotated[str, Field(max_length=100)] = ""


@router.get("/reset", response_class=HTMLResponse)
def reset_page(request: Request, params: Annotated[ResetParams, Query()]) -> HTMLResponse:
    """The page behind `papersift users reset NAME`'s link: a new password for its user. The
    link is the capability (the user has lost the password, so has no session); the form's CSRF
    token is bound to this browser like the login form's."""
    lang = request_lang(request, params.lang)
    user_id = request.app.state.accounts.reset_user(params.token)
    return _pre_login_form(request, "reset.html", lang, 200 if user_id else 404, token=params.token, user_name=user_id,
                           problem=None if user_id else LABELS[lang]["reset_invalid"])


@router.post("/reset")
async def reset_password(request: Request) -> Response:
    """Sets the password, uses the link up and ends every session of its user (one transaction,
    Accounts.reset_password); then the login form, with the account's failed logins forgotten."""
    values = await _pre_login_fields(request)
    lang, token = _lang_of(values.get("lang")), values.get("token", "")[:100]
    accounts = request.app.state.accounts
    if values.get("password", "") != values.get("password_again", ""):
        return _pre_login_form(request, "reset.html", lang, 422, token=token, user_name=accounts.reset_user(token),
                               problem=LABELS[lang]["mismatch"])
    try:
        user_id = await run_in_threadpool(accounts.reset_password, token, values.get("password", ""))
    except AccountError as problem:
        return _pre_login_form(request, "reset.html", lang, 422, token=token, user_name=accounts.reset_user(token),
                               problem=str(problem))
    request.app.state.login_limiter.succeeded(user_id)
    return _pre_login_form(request, "login.html", lang, next="/account", problem=None, name=user_id,
                           notice=LABELS[lang]["reset_done"])


async def _session_form(request: Request) -> dict[str, str]:
    """A logged-in form's fields, its CSRF token checked against the session's key."""
    values = dict(await read_fields(request))
    check_form_csrf(request, values.get("csrf", ""))
    return values


@router.post("/logout", dependencies=[Depends(require_form_writes)])
async def logout(request: Request) -> Response:
    values = await _session_form(request)
    await run_in_threadpool(request.app.state.accounts.end_session, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse(f"/login?lang={_lang_of(values.get('lang'))}", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=_secure(request))
    return response


def _account_page(request: Request, lang: Lang, status: int = 200, **context) -> HTMLResponse:
    user = require_user(request)
    context = {"new_token": None, "notice": None, "problem": None, **context}
    return _render(request, "account.html", lang, status, user_name=user.user_id,
                   tokens=request.app.state.accounts.api_tokens(user.user_id),
                   sessions=[{"created": _when(info.created_at), "expires": _when(info.expires_at),
                              "user_agent": info.user_agent, "current": info.current}
                             for info in request.app.state.accounts.sessions(user.user_id, user.session_hash)],
                   csrf=form_csrf(request), **context)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(timestamp))


@router.get("/account", response_class=HTMLResponse)
def account_page(request: Request, params: Annotated[PaperParams, Query()]) -> HTMLResponse:
    return _account_page(request, request_lang(request, params.lang))


@router.post("/account/tokens", dependencies=[Depends(require_form_writes)])
async def create_token(request: Request) -> Response:
    """Answers the account page itself (not a redirect): the new token is on it this once."""
    values = await _session_form(request)
    lang, user = _lang_of(values.get("lang")), require_user(request)
    try:
        _, value = await run_in_threadpool(request.app.state.accounts.create_api_token, user.user_id, values.get("name", ""))
    except AccountError as problem:
        return _account_page(request, lang, 422, problem=str(problem))
    response = _account_page(request, lang, new_token=value)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/account/tokens/{token_id}/revoke", dependencies=[Depends(require_form_writes)])
async def revoke_token(request: Request, token_id: int) -> Response:
    values = await _session_form(request)
    user = require_user(request)
    if not await run_in_threadpool(request.app.state.accounts.revoke_api_token, user.user_id, token_id):
        raise ApiError(404, "not_found", "no such API token of yours")
    return RedirectResponse(f"/account?lang={quote(_lang_of(values.get('lang')))}", status_code=303)


@router.post("/account/sessions/end-others", dependencies=[Depends(require_form_writes)])
async def end_other_sessions(request: Request) -> Response:
    """Every session of this user but the one asking ends (a browser left logged in elsewhere,
    a stolen cookie); only the asker's own: the user id comes from the session, never the form."""
    values = await _session_form(request)
    lang, user = _lang_of(values.get("lang")), require_user(request)
    ended = await run_in_threadpool(request.app.state.accounts.end_other_sessions, user.user_id, user.session_hash)
    return _account_page(request, lang, notice=LABELS[lang]["others_ended"].format(count=ended))


@router.post("/account/password", dependencies=[Depends(require_form_writes)])
async def change_password(request: Request) -> Response:
    values = await _session_form(request)
    lang, user = _lang_of(values.get("lang")), require_user(request)
    if values.get("new_password", "") != values.get("password_again", ""):
        return _account_page(request, lang, 422, problem=LABELS[lang]["mismatch"])
    # A stolen session must not buy unlimited guesses at the password: limited like the login
    account = user.user_id
    address = _guess_allowed(request, account)
    try:
        await run_in_threadpool(request.app.state.accounts.change_password, user.user_id, values.get("password", ""),
                                values.get("new_password", ""), user.session_hash)
    except WrongPassword as problem:  # stays counted
        return _account_page(request, lang, 422, problem=str(problem))
    except AccountError as problem:  # the current password was right; the new one refused
        request.app.state.login_limiter.succeeded(account, address)
        return _account_page(request, lang, 422, problem=str(problem))
    request.app.state.login_limiter.succeeded(account, address)
    return _account_page(request, lang, notice=LABELS[lang]["password_changed"])
