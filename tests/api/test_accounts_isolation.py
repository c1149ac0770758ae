"""With accounts, two users' libraries never leak into each other: every route of the app
(enumerated from the app itself, so a new route fails here until it is listed) is called by Bob
with Alice's paper ids, saved-search ids and names, tags, token ids and Bob's own feed token;
no answer holds any of Alice's secrets Bob did not send himself, and nothing of Alice's changes.
Anonymous calls of the user routes get 401 (API, page forms) or the login redirect (pages)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from account_clients import Clock, accounts_app, api_token, csrf_of, logged_in, session_csrf
from papersift.follow.state import Following
from papersift.library.entries import Library
from served_papers import build_served_data_dir

TAG, NOTE, SAVED_NAME, SAVED_QUERY = "alice-tag-secret", "alice-note-secret-7f3", "alice-saved-secret-9k2", "alicequerysecret"


@dataclass
class Call:
    method: str
    path: str
    json: object = None
    form: dict | None = None  # a page form: Bob's session CSRF token is added
    content: str | None = None
    files: dict | None = None  # a multipart upload beside `form`
    user: bool = True  # holds or changes a user's data: anonymous calls are refused
    extra: list[Call] = field(default_factory=list)


def route_table(app) -> set[str]:
    """Every (method, path) the app answers, through FastAPI's included routers."""
    found: set[str] = set()

    def add(path, route):
        for method in getattr(route, "methods", None) or ():
            if method != "HEAD":
                found.add(f"{method} {path}")

    for route in app.routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is None:
            add(getattr(route, "path", ""), route)
            continue
        for context in contexts():
            add(context.path, context.original_route)
    return found


@dataclass
class World:
    app: object
    alice: TestClient
    bob: TestClient
    alice_api: dict
    bob_api: dict
    ids: list[str]
    saved_id: int
    alice_feed: str
    bob_feed: str
    alice_token_id: int
    paper: dict
    alice_reset: str  # a reset link the admin made for Alice: no call of Bob's may use or show it


@pytest.fixture(scope="module")
def world(sample_records, tmp_path_factory) -> World:
    data_dir = build_served_data_dir(tmp_path_factory.mktemp("isolation") / "data", sample_records[:60])
    app = accounts_app(data_dir, Clock())
    alice_value, bob_value = api_token(app, "alice"), api_token(app, "bob")
    alice_api, bob_api = ({"Authorization": f"Bearer {value}"} for value in (alice_value, bob_value))
    ids = [record["id"] for record in sample_records[:4]]
    client = TestClient(app, raise_server_exceptions=False)
    assert client.post("/api/library/tag", json={"tag": TAG, "paper_ids": ids[:3]}, headers=alice_api).status_code == 200
    assert client.post("/api/library/note", json={"paper_id": ids[0], "note": NOTE}, headers=alice_api).status_code == 200
    assert client.post("/api/library/rating", json={"rating": "like", "paper_ids": ids[3:]}, headers=alice_api).status_code == 200
    saved = client.post("/api/saved-searches", json={"name": SAVED_NAME, "search": {"q": SAVED_QUERY}}, headers=alice_api)
    assert saved.status_code == 201
    assert client.post("/api/seen", json={"watch": f"tag:{TAG}"}, headers=alice_api).status_code == 200
    alice_feed = client.post("/api/feed-token", headers=alice_api).json()["token"]
    bob_feed = client.post("/api/feed-token", headers=bob_api).json()["token"]
    record = sample_records[0]
    return World(app, logged_in(app, "alice"), logged_in(app, "bob"), alice_api, bob_api, ids, saved.json()["id"],
                 alice_feed, bob_feed, app.state.accounts.api_tokens("alice")[0].id,
                 {"id": record["id"], "author": record["authors"][0], "venue": record["venue"], "year": record["year"]},
                 app.state.accounts.create_reset("alice")[0])


def calls(w: World) -> dict[str, list[Call]]:
    """One entry per route of the app; Alice's ids wherever a route takes one."""
    ids, paper, sid = w.ids, w.paper, w.saved_id
    venue, author = quote(paper["venue"], safe=""), quote(paper["author"], safe="")
    bibtex = f"@inproceedings{{x, title={{T}}, keywords={{{TAG}}}, papersift_id={{{ids[0]}}}}}"
    table = {
        "GET /openapi.json": [Call("GET", "/openapi.json", user=False)],
        "GET /docs": [Call("GET", "/docs", user=False)],
        "GET /docs/oauth2-redirect": [Call("GET", "/docs/oauth2-redirect", user=False)],
        "GET /redoc": [Call("GET", "/redoc", user=False)],
        "GET /api/search": [Call("GET", "/api/search?q=learning", user=False)],
        "GET /api/papers/{paper_id:path}/similar": [Call("GET", f"/api/papers/{ids[0]}/similar", user=False)],
        "GET /api/papers/{paper_id:path}": [Call("GET", f"/api/papers/{ids[0]}", user=False)],
        "GET /api/facets": [Call("GET", "/api/facets", user=False)],
        "GET /api/export": [Call("GET", "/api/export?q=learning&format=json", user=False)],
        "POST /api/papers": [Call("POST", "/api/papers", json=[], user=False)],  # the corpus: the server's write token only
        "GET /api/authors/{author:path}": [Call("GET", f"/api/authors/{author}", user=False)],
        "GET /api/venues/{venue}": [Call("GET", f"/api/venues/{venue}", user=False)],
        "GET /api/venues/{venue}/{year}": [Call("GET", f"/api/venues/{venue}/{paper['year']}", user=False)],
        "GET /api/library": [Call("GET", f"/api/library?tag={TAG}"), Call("GET", "/api/library?rating=like")],
        "GET /api/library/tags": [Call("GET", "/api/library/tags")],
        "GET /api/library/export": [Call("GET", f"/api/library/export?format=json&tag={TAG}"),
                                    Call("GET", "/api/library/export?format=bibtex")],
        "POST /api/library/untag": [Call("POST", "/api/library/untag", json={"tag": TAG, "paper_ids": ids})],
        "POST /api/library/rating": [Call("POST", "/api/library/rating", json={"rating": "none", "paper_ids": ids})],
        "POST /api/library/note": [Call("POST", "/api/library/note", json={"paper_id": ids[0], "note": None})],
        "POST /api/library/reading": [Call("POST", "/api/library/reading", json={"state": "none", "paper_ids": ids})],
        "POST /api/library/remove": [Call("POST", "/api/library/remove", json={"paper_ids": ids})],
        "POST /api/library/tag": [Call("POST", "/api/library/tag", json={"tag": TAG, "paper_ids": ids[:1]})],
        "POST /api/library/import": [Call("POST", "/api/library/import?format=bibtex", content=bibtex)],
        "GET /api/library/recommendations": [Call("GET", f"/api/library/recommendations?tag={TAG}"),
                                             Call("GET", "/api/library/recommendations")],
        "GET /api/saved-searches": [Call("GET", "/api/saved-searches")],
        "POST /api/saved-searches": [Call("POST", "/api/saved-searches", json={"name": "bobs", "search": {"q": "x"}})],
        "GET /api/saved-searches/{ref}": [Call("GET", f"/api/saved-searches/{sid}"),
                                          Call("GET", f"/api/saved-searches/{SAVED_NAME}")],
        "PATCH /api/saved-searches/{ref}": [Call("PATCH", f"/api/saved-searches/{sid}", json={"name": "taken"})],
        "DELETE /api/saved-searches/{ref}": [Call("DELETE", f"/api/saved-searches/{sid}"),
                                             Call("DELETE", f"/api/saved-searches/{SAVED_NAME}")],
        "POST /api/seen": [Call("POST", "/api/seen", json={"watch": f"saved:{sid}"}),
                           Call("POST", "/api/seen", json={"watch": f"tag:{TAG}"})],
        "GET /api/feed-token": [Call("GET", "/api/feed-token")],
        "POST /api/feed-token": [Call("POST", "/api/feed-token")],
        "DELETE /api/feed-token": [Call("DELETE", "/api/feed-token")],
        "GET /api/topics/map": [Call("GET", "/api/topics/map", user=False)],
        "GET /api/topics/trends": [Call("GET", "/api/topics/trends", user=False)],
        "GET /": [Call("GET", "/?q=learning", user=False)],
        "GET /paper/{paper_id:path}/similar": [Call("GET", f"/paper/{ids[0]}/similar", user=False)],
        "GET /paper/{paper_id:path}": [Call("GET", f"/paper/{ids[0]}", user=False)],
        "GET /topics": [Call("GET", "/topics", user=False)],
        "GET /status": [Call("GET", "/status", user=False)],  # the operator's page: on the server's own machine only
        "GET /author/{author:path}": [Call("GET", f"/author/{author}", user=False)],
        "GET /venue/{venue}": [Call("GET", f"/venue/{venue}", user=False)],
        "GET /venue/{venue}/{year}": [Call("GET", f"/venue/{venue}/{paper['year']}", user=False)],
        "GET /feeds/search": [Call("GET", "/feeds/search?q=learning", user=False)],
        "GET /feeds/venue/{venue}": [Call("GET", f"/feeds/venue/{venue}", user=False)],
        "GET /feeds/venue/{venue}/{year}": [Call("GET", f"/feeds/venue/{venue}/{paper['year']}", user=False)],
        "GET /feeds/author/{author:path}": [Call("GET", f"/feeds/author/{author}", user=False)],
        # A private feed URL is its token's capability (a feed reader has no session): Bob's token
        # with Alice's saved search and tag must show nothing of hers.
        "GET /feeds/private/{token}/saved/{saved_id}": [Call("GET", f"/feeds/private/{w.bob_feed}/saved/{sid}", user=False)],
        "GET /feeds/private/{token}/tag/{tag:path}": [Call("GET", f"/feeds/private/{w.bob_feed}/tag/{TAG}", user=False)],
        "GET /library": [Call("GET", "/library"), Call("GET", f"/library?tag={TAG}")],
        "GET /library/recommend": [Call("GET", f"/library/recommend?tag={TAG}")],
        "POST /library/marks": [Call("POST", "/library/marks", form={"do": "like:0", "paper-0": ids[0], "back": "/"}),
                                Call("POST", "/library/marks", form={"do": "tag:0", "paper-0": ids[1], "tag-0": "bobs"}),
                                Call("POST", "/library/marks", form={"do": "save:0", "paper-0": ids[0], "note-0": "bobs note",
                                                                     "reading-0": "read"}),
                                Call("POST", "/library/marks", form={"do": "remove:0", "paper-0": ids[2]})],
        "POST /library/import": [Call("POST", "/library/import", form={"tag": "bobs import"},
                                      files={"file": ("library.bib", bibtex, "text/plain")})],
        "GET /saved": [Call("GET", "/saved")],
        "GET /saved/{saved_id}": [Call("GET", f"/saved/{sid}")],
        "POST /saved": [Call("POST", "/saved", form={"name": "bobs page search", "q": "x"})],
        "POST /saved/{saved_id}/{action}": [Call("POST", f"/saved/{sid}/{action}", form={"name": "taken"})
                                            for action in ("rename", "seen", "feed", "delete")],
        "POST /seen": [Call("POST", "/seen", form={"kind": "tag", "key": TAG, "back": "/"}),
                       Call("POST", "/seen", form={"kind": "saved", "key": str(sid), "back": "/"})],
        "GET /login": [Call("GET", "/login", user=False)],
        "GET /healthz": [Call("GET", "/healthz", user=False)],
        "POST /login": [Call("POST", "/login", form={"name": "alice", "password": "not-alices-password"}, user=False)],
        "GET /signup": [Call("GET", "/signup?invite=nothing", user=False)],
        "POST /signup": [Call("POST", "/signup", form={"invite": "x", "name": "mallory", "password": "p" * 12,
                                                       "password_again": "p" * 12}, user=False)],
        "GET /reset": [Call("GET", "/reset?token=nothing", user=False)],
        "POST /reset": [Call("POST", "/reset", form={"token": "nothing", "password": "p" * 12, "password_again": "p" * 12},
                             user=False)],
        "GET /account": [Call("GET", "/account")],
        "POST /account/tokens": [Call("POST", "/account/tokens", form={"name": "bobs"})],
        "POST /account/tokens/{token_id}/revoke": [Call("POST", f"/account/tokens/{w.alice_token_id}/revoke", form={})],
        "POST /account/sessions/end-others": [Call("POST", "/account/sessions/end-others", form={})],
        "POST /account/password": [Call("POST", "/account/password", form={"password": "alice-password-1",
                                                                           "new_password": "q" * 12, "password_again": "q" * 12})],
        "POST /logout": [Call("POST", "/logout", form={})],  # last: ends Bob's session
        "GET /topics/map": [Call("GET", "/topics/map", user=False)],
        "GET /topics/trends.svg": [Call("GET", "/topics/trends.svg", user=False)],
    }
    return table


def alice_state(w: World) -> dict:
    app = w.app
    store = app.state.accounts.store
    library, following = Library(store, "alice"), Following(store, "alice")
    return {"entries": [entry.to_dict() for entry in library.entries()], "tags": library.tags(),
            "saved": [saved.to_dict() for saved in following.saved_searches()], "marks": following.watches("page"),
            "seen": following.mark(f"tag:{TAG}"), "feed": following.feed_token(),
            "tokens": [token.to_dict() for token in app.state.accounts.api_tokens("alice")],
            "password": app.state.accounts.check_password("alice", "alice-password-1"),
            "reset": app.state.accounts.reset_user(w.alice_reset),
            "sessions": [(info.created_at, info.user_agent) for info in app.state.accounts.sessions("alice")]}


def send(client: TestClient, call: Call, headers: dict, csrf: str | None):
    if not call.path.startswith("/api"):
        headers = {**headers, "Accept": "text/html"}  # as a browser asks for a page
    if call.form is not None:
        return client.request(call.method, call.path, data={**call.form, **({"csrf": csrf} if csrf else {})},
                              files=call.files, headers=headers, follow_redirects=False)
    return client.request(call.method, call.path, json=call.json, content=call.content, headers=headers,
                          follow_redirects=False)


def test_every_route_of_the_app_is_listed_here(world):
    assert route_table(world.app) == set(calls(world)), "list the new route in calls() (and in the anonymous test)"


def test_bob_with_alices_ids_sees_nothing_of_alice_and_changes_nothing(world):
    before = alice_state(world)
    secrets = [TAG, NOTE, SAVED_NAME, SAVED_QUERY, world.alice_feed, world.alice_reset]
    csrf = session_csrf(world.bob)
    leaks, failures, sent = [], [], ""
    for key, route_calls in calls(world).items():
        for call in route_calls:
            response = send(world.bob, call, world.bob_api, csrf)
            sent += f" {call.path} {json.dumps(call.json)} {call.content} {json.dumps(call.form)}"  # Bob's own, from now on
            leaked = [secret for secret in secrets if secret in response.text and secret not in sent]
            if leaked:
                leaks.append(f"{key} {call.path}: {leaked}")
            if response.status_code >= 500 and response.status_code != 503:
                failures.append(f"{key} {call.path}: {response.status_code}")
    assert not leaks and not failures
    assert alice_state(world) == before
    # Bob's own changes landed in Bob's tables: the calls did run as Bob.
    bob = Library(world.app.state.accounts.store, "bob")
    assert bob.tagged(TAG) == world.ids[:1] and "bobs" in {s.name for s in Following(bob.store, "bob").saved_searches()}
    assert bob.entry(world.ids[0]).note == "bobs note" and bob.tagged("bobs") == [world.ids[1]]  # the page forms ran
    assert bob.tagged("bobs import") == world.ids[:1]
    assert world.app.state.accounts.session(world.bob.cookies.get("papersift_session") or "") is None  # logged out last


def test_anonymous_calls_of_user_routes_are_refused(world):
    anonymous = TestClient(world.app, raise_server_exceptions=False)
    wrong = {"Authorization": "Bearer pst_not-a-token-of-anyone"}
    before = alice_state(world)
    for key, route_calls in calls(world).items():
        for call in (call for call in route_calls if call.user):
            for headers in ({}, wrong, {"Authorization": "Bearer write-token-of-the-server"}):
                response = send(anonymous, call, headers, None)
                if call.path.startswith("/api") or call.method != "GET":
                    assert response.status_code == 401, (key, call.path, response.status_code)
                else:
                    assert response.status_code == 303 and response.headers["location"].startswith("/login?next="), key
    assert alice_state(world) == before


def test_the_page_session_does_not_open_the_api_nor_an_api_token_the_pages(world):
    # Pages: a cookie; API: a bearer token. Each alone, never the other (no CSRF on the JSON API).
    assert world.alice.get("/api/library").status_code == 401
    pages = TestClient(world.app, raise_server_exceptions=False)
    page = pages.get("/library", headers={**world.alice_api, "Accept": "text/html"}, follow_redirects=False)
    assert page.status_code == 303
    assert world.alice.get("/library").status_code == 200 and NOTE in world.alice.get("/library").text
    assert TestClient(world.app).get("/api/library", headers=world.alice_api).json()["user"] == "alice"


def test_the_search_page_has_controls_for_a_user_and_none_for_an_anonymous_visitor(world):
    anonymous = TestClient(world.app, raise_server_exceptions=False)
    page = anonymous.get("/?q=learning&mode=keyword", headers={"Accept": "text/html"}, follow_redirects=False)
    assert page.status_code == 200 and page.text.count('class="hit') >= 5
    assert 'class="marks-form"' not in page.text
    users = logged_in(world.app, "alice").get("/?q=learning&mode=keyword", headers={"Accept": "text/html"})
    assert users.status_code == 200 and 'class="marks-form"' in users.text
    assert 'name="token"' not in users.text  # the session is the proof: no write-token field


def test_bob_cannot_use_or_guess_alices_reset_link(world):
    before = alice_state(world)
    assert before["reset"] == "alice"
    bob = logged_in(world.app, "bob")  # a session of his own (the route test logged world.bob out)
    for token in ("", "nothing", world.alice_reset[:-1], world.alice_reset + "x"):
        page = bob.get(f"/reset?token={token}", headers={"Accept": "text/html"})
        assert page.status_code == 404 and "alice" not in page.text
        form = bob.get("/login")
        sent = bob.post("/reset", data={"csrf": csrf_of(form.text), "token": token, "password": "b" * 12,
                                        "password_again": "b" * 12})
        assert sent.status_code == 422
    assert alice_state(world) == before
