"""Test helpers for servers with accounts (`serve --accounts`): a clock tests move instead of
sleeping, users made through papersift.accounts, clients logged in through the login form."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from papersift.accounts.ratelimit import LoginLimiter
from papersift.server import create_app
from served_papers import TEST_HOSTS

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-22"}
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Clock:
    """time.time() that only moves when a test says so."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def accounts_app(data_dir, clock: Clock, users=("alice", "bob"), **options):
    """An app with accounts whose sessions and login limiter read `clock`, with these users."""
    app = create_app(data_dir, allowed_hosts=TEST_HOSTS, accounts=True, **options)
    app.state.accounts.clock = clock
    app.state.login_limiter = LoginLimiter(clock=clock)
    for name in users:
        app.state.accounts.add_user(name, PASSWORDS[name])
    return app


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "the page has no form with a CSRF token"
    return unescape(found.group(1))


def login(client: TestClient, name: str, password: str | None = None):
    """The login form, filled in and sent (the response is not followed)."""
    form = client.get("/login")
    assert form.status_code == 200
    return client.post("/login", data={"csrf": csrf_of(form.text), "name": name,
                                       "password": PASSWORDS.get(name, "") if password is None else password,
                                       "next": "/library"}, follow_redirects=False)


def logged_in(app, name: str) -> TestClient:
    client = TestClient(app, raise_server_exceptions=False)
    response = login(client, name)
    assert response.status_code == 303, response.text
    return client


def session_csrf(client: TestClient) -> str:
    """The CSRF token of the client's login session (from the account page)."""
    return csrf_of(client.get("/account").text)


def api_token(app, name: str) -> str:
    return app.state.accounts.create_api_token(name, "tests")[1]
