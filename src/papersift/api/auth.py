"""Who a request is: decided here and nowhere else (docs/accounts.md).

Without accounts every request is the one local user (component_schema.LOCAL_USER), exactly as
on a personal install. With `serve --accounts`:
* /api requests name their user with `Authorization: Bearer <API token>` (a user's token,
  accounts/users.py); the API ignores the session cookie, so no other site can make a
  browser call the API as its user (no CSRF on the JSON API);
* pages name it with the session cookie (HttpOnly, SameSite=Lax; web/account_pages.py sets it);
* anything else is anonymous (None): user pages redirect to /login, the API answers 401.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from papersift.api.errors import ApiError
from papersift.component_schema import LOCAL_USER

SESSION_COOKIE = "papersift_session"
ANONYMOUS = "(anonymous)"  # a user id no account can have (accounts/users.NAME_PATTERN): owns no rows


@dataclass(frozen=True)
class RequestUser:
    user_id: str
    session_hash: str | None  # pages: the session (CSRF tokens are bound to it); None for API tokens and LOCAL_USER


def accounts_on(request: Request) -> bool:
    return bool(getattr(request.app.state.settings, "accounts", False))


def request_user(request: Request) -> RequestUser | None:
    """The request's user (None: anonymous, only with accounts on); looked up once per request."""
    if not accounts_on(request):
        return RequestUser(LOCAL_USER, None)
    if "papersift_user" in request.scope:
        return request.scope["papersift_user"]
    accounts = request.app.state.accounts
    user: RequestUser | None = None
    if request.url.path.startswith("/api"):
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        user_id = accounts.user_of_api_token(value.strip()) if scheme.lower() == "bearer" else None
        user = RequestUser(user_id, None) if user_id else None
    else:
        session = accounts.session(request.cookies.get(SESSION_COOKIE, ""))
        user = RequestUser(session.user_id, session.session_hash) if session else None
    request.scope["papersift_user"] = user
    return user


class LoginRequired(ApiError):
    """An anonymous request for a user's data: 401 on the API, a redirect to /login on pages
    (api/errors.py)."""

    def __init__(self, request: Request):
        if request.url.path.startswith("/api"):
            message = "this server has accounts: send 'Authorization: Bearer <your API token>' (made on /account)"
        else:
            message = "log in to see this page"
        super().__init__(401, "login_required", message)


def require_user(request: Request) -> RequestUser:
    user = request_user(request)
    if user is None:
        raise LoginRequired(request)
    return user
