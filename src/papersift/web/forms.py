"""The page's forms that change things (save a search, rename, delete, mark as seen): plain
HTML forms that work without JavaScript, POSTed as application/x-www-form-urlencoded.

Two checks guard each one (docs/feeds.md, "Forms and CSRF"; docs/accounts.md):
* who writes: without accounts, the write gate of the API in form shape (the server runs with
  --enable-writes and the form carries the write token, a password field the browser can
  remember, compared in constant time); with `serve --accounts`, the login session (api/auth.py)
  and no token field;
* a CSRF token: the form's hidden `csrf` field, signed with itsdangerous by the per-install key
  (follow.schema: made with the follow tables at the first write, i.e. when a server with
  writes enabled starts or a CLI command first writes; never while answering a request),
  checked with a maximum age of CSRF_MAX_AGE_S. With accounts the key is derived from the
  install key and the login session (form_key), so a token is dead in any other session and
  after logout. Another site cannot read a page of this one,
  so it cannot forge a form that passes (and CSP form-action 'self' keeps this site's forms here).
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl

from fastapi import Request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from papersift.api.auth import accounts_on, request_user, require_user
from papersift.api.errors import ApiError

CSRF_SALT = "papersift-forms"
CSRF_MAX_AGE_S = 24 * 3600
MAX_FORM_FIELDS = 300


def _serializer(key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(key, salt=CSRF_SALT)


def csrf_token(key: str | None, user_id: str) -> str | None:
    """The hidden field's value (None when the install has no key yet: the page then shows no form)."""
    return _serializer(key).dumps(user_id) if key else None


def check_csrf(key: str | None, token: str, user_id: str) -> None:
    if not key:
        raise ApiError(403, "csrf_failed", "this install has no form key yet: restart the server with --enable-writes")
    try:
        signed_for = _serializer(key).loads(token, max_age=CSRF_MAX_AGE_S)
    except BadSignature:  # SignatureExpired is one: the page is over a day old
        raise ApiError(403, "csrf_failed", "the form expired or was not made by this server: reload the page and "
                       "send it again") from None
    if signed_for != user_id:
        raise ApiError(403, "csrf_failed", "the form was made for another user")


def form_key(request: Request) -> tuple[str | None, str]:
    """(signing key, user id) of the request's form tokens: the install's key (Following.csrf_key),
    or for a login session (accounts) a key derived from it and the session, so a form made in
    one session is refused in any other and after logout."""
    from papersift.api.saved_routes import following_of

    following = following_of(request)
    key, user = following.csrf_key(), request_user(request)
    if key and user is not None and user.session_hash is not None:
        key = hmac.new(key.encode(), f"session:{user.session_hash}".encode(), hashlib.sha256).hexdigest()
    return key, following.user_id


def form_csrf(request: Request) -> str | None:
    """The request's forms' CSRF field (None when the install has no key yet)."""
    return csrf_token(*form_key(request))


def check_form_csrf(request: Request, token: str) -> None:
    """A posted form's CSRF field, checked against the request's key and user (403 when wrong)."""
    key, user_id = form_key(request)
    check_csrf(key, token, user_id)


def require_form_writes(request: Request) -> None:
    """Before the body is read: a read-only server refuses every form; with accounts, an
    anonymous one (401: log in first)."""
    if accounts_on(request):
        require_user(request)
        return
    if not request.app.state.settings.enable_writes:
        raise ApiError(403, "writes_disabled", "this server is read-only; start it with --enable-writes and a token")


async def read_fields(request: Request) -> list[tuple[str, str]]:
    """The url-encoded body, under the app's size and time limits, as (name, value) pairs."""
    body = (await request.body()).decode("utf-8", errors="replace")
    try:
        return parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except ValueError:
        raise ApiError(422, "invalid_body", f"a form has at most {MAX_FORM_FIELDS} fields") from None


async def read_form(request: Request) -> list[tuple[str, str]]:
    """The url-encoded body (under the app's size and time limits), then, without accounts, the
    write token checked."""
    fields = await read_fields(request)
    check_write_token(request, fields)
    return fields


WRITER_COOKIE = "papersift_writer"  # without accounts: this browser signed in with the write token (web/writer_pages.py)


def writer_proof(write_token: str) -> str:
    """The writer cookie's value: an HMAC of the write token (the token itself never sits in a
    cookie); a new token (quickstart makes one each start) signs every browser out."""
    return hmac.new(write_token.encode(), b"papersift-writer-cookie", hashlib.sha256).hexdigest()


def writer_signed_in(request: Request) -> bool:
    """Without accounts, writes on: the browser signed in once with the write token (/signin)."""
    settings = request.app.state.settings
    if accounts_on(request) or not settings.enable_writes or not settings.write_token:
        return False
    cookie = request.cookies.get(WRITER_COOKIE, "")
    return hmac.compare_digest(cookie.encode(), writer_proof(settings.write_token).encode())


def check_write_token(request: Request, fields: list[tuple[str, str]]) -> None:
    """Without accounts: the form's `token` field against the server's write token (constant
    time), or, with no such field, the browser's sign-in (the writer cookie). A wrong token field
    is refused even from a signed-in browser. With accounts the session proved the writer
    (require_form_writes); the CSRF token is checked next."""
    if accounts_on(request):
        return
    token = next((value for name, value in fields if name == "token"), None)
    if token is None and writer_signed_in(request):
        return
    expected = request.app.state.settings.write_token
    if not hmac.compare_digest((token or "").encode(), expected.encode()):
        raise ApiError(401, "unauthorized", "sign in with the server's write token first (/signin)")
