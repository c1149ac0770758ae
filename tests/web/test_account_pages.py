"""The account pages with `--accounts`: log in and out, sign up by invitation, API tokens and the
password; wrong passwords rate limited (429 + Retry-After, the clock moved, never slept); forms
without a CSRF token, with a wrong one or one of another session refused; sessions expire."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from account_clients import PASSWORDS, Clock, accounts_app, csrf_of, logged_in, login, session_csrf
from papersift.accounts.ratelimit import MAX_FAILURES_PER_ACCOUNT, WINDOW_S
from papersift.accounts.users import SESSION_TTL_S, digest
from papersift.library.entries import Library
from served_papers import build_served_data_dir

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def data_dir(sample_records, tmp_path_factory):
    return build_served_data_dir(tmp_path_factory.mktemp("account-pages") / "data", sample_records[:60])


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def app(data_dir, tmp_path, clock):
    from served_papers import copy_data_dir

    return accounts_app(copy_data_dir(data_dir, tmp_path / "data"), clock)


def _client(app) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


def test_login_sets_an_httponly_samesite_session_cookie_and_goes_back(app):
    client = _client(app)
    response = login(client, "alice")
    assert response.status_code == 303 and response.headers["location"] == "/library"
    cookie = next(value for value in response.headers.get_list("set-cookie") if value.startswith("papersift_session="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    page = client.get("/library", headers=HTML)
    assert page.status_code == 200 and 'href="/account?lang=' in page.text and "(alice)" in page.text


def test_the_cookie_is_secure_over_https_and_with_secure_cookies(app, data_dir, tmp_path, clock):
    https = TestClient(app, base_url="https://testserver")
    form = https.get("/login")
    response = https.post("/login", data={"csrf": csrf_of(form.text), "name": "alice", "password": PASSWORDS["alice"]},
                          follow_redirects=False)
    assert "Secure" in next(c for c in response.headers.get_list("set-cookie") if c.startswith("papersift_session="))
    from served_papers import copy_data_dir

    # Behind an https proxy that forwards plain http: Secure all the same (so this http client
    # keeps the cookie to itself, as a browser would).
    forced = accounts_app(copy_data_dir(data_dir, tmp_path / "forced"), clock, users=(), secure_cookies=True)
    assert "Secure" in _client(forced).get("/login").headers["set-cookie"]


def test_a_wrong_password_is_refused_then_rate_limited_with_retry_after(app, clock):
    client = _client(app)
    for _ in range(MAX_FAILURES_PER_ACCOUNT):
        refused = login(client, "alice", "not-the-password")
        assert refused.status_code == 401 and "Wrong user name or password" in refused.text
        assert "papersift_session" not in refused.headers.get("set-cookie", "")
    limited = login(client, "alice")  # even the right password, while the account is locked
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) == WINDOW_S
    assert login(client, "bob").status_code == 303  # another account from the same address still logs in
    clock.advance(WINDOW_S - 10)
    assert int(login(client, "alice").headers["retry-after"]) == 10
    clock.advance(10)
    assert login(client, "alice").status_code == 303


def test_unknown_names_count_against_the_address(app):
    client = _client(app)
    statuses = [login(client, f"nobody{index}", "not-the-password").status_code for index in range(21)]
    assert statuses[:20] == [401] * 20 and statuses[20] == 429


@pytest.mark.parametrize("csrf", [None, "", "forged.token.value", "other-session"])
def test_forms_without_or_with_a_wrong_or_other_sessions_csrf_token_are_refused(app, sample_records, csrf):
    alice, bob = logged_in(app, "alice"), logged_in(app, "bob")
    token = session_csrf(bob) if csrf == "other-session" else csrf
    fields = {"name": "saved by a forged form", "q": "x"} | ({} if token is None else {"csrf": token})
    response = alice.post("/saved", data=fields, headers=HTML, follow_redirects=False)
    assert response.status_code == 403
    tokens = alice.post("/account/tokens", data={"name": "x"} | ({} if token is None else {"csrf": token}))
    assert tokens.status_code == 403 and app.state.accounts.api_tokens("alice") == []
    assert alice.post("/logout", data={} if token is None else {"csrf": token}).status_code == 403
    assert alice.get("/account").status_code == 200  # still logged in
    good = alice.post("/saved", data={"name": "saved by alice", "q": "x", "csrf": session_csrf(alice)}, follow_redirects=False)
    assert good.status_code == 303


def test_a_form_token_dies_with_its_session(app):
    client = logged_in(app, "alice")
    old = session_csrf(client)
    assert client.post("/logout", data={"csrf": old}, follow_redirects=False).status_code == 303
    assert client.get("/account", headers=HTML, follow_redirects=False).status_code == 303  # logged out
    assert login(client, "alice").status_code == 303  # a new session
    refused = client.post("/saved", data={"name": "with the old token", "q": "x", "csrf": old}, follow_redirects=False)
    assert refused.status_code == 403 and session_csrf(client) != old


def test_a_session_expires(app, clock):
    client = logged_in(app, "alice")
    clock.advance(SESSION_TTL_S + 1)
    response = client.get("/library", headers=HTML, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login?next=%2Flibrary"


def test_the_login_form_needs_its_csrf_token_and_goes_only_to_this_sites_paths(app):
    client = _client(app)
    assert client.post("/login", data={"name": "alice", "password": PASSWORDS["alice"]}).status_code == 403
    form = client.get("/login?next=//evil.example/x")
    assert 'value="/"' in form.text
    other = _client(app)  # a token made for another browser (its pre-login cookie) is refused
    stolen = csrf_of(other.get("/login").text)
    assert client.post("/login", data={"csrf": stolen, "name": "alice", "password": PASSWORDS["alice"]}).status_code == 403
    done = client.post("/login", data={"csrf": csrf_of(form.text), "name": "alice", "password": PASSWORDS["alice"],
                                       "next": "//evil.example/x"}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/"


def test_sign_up_by_invitation_once(app):
    token, _ = app.state.accounts.invite()
    client = _client(app)
    form = client.get(f"/signup?invite={token}&lang=zh")
    assert form.status_code == 200 and "注册" in form.text
    fields = {"csrf": csrf_of(form.text), "invite": token, "name": "carol", "password": "carols-password",
              "password_again": "carols-password", "lang": "zh"}
    done = client.post("/signup", data=fields, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/account?lang=zh"
    assert "carol" in client.get("/account?lang=zh").text
    again = _client(app)
    assert again.get(f"/signup?invite={token}").status_code == 404
    form = again.get(f"/signup?invite={token}")
    assert again.post("/signup", data={**fields, "csrf": csrf_of(form.text), "name": "dave"}).status_code == 422
    assert [user.user_id for user in app.state.accounts.users()] == ["alice", "bob", "carol"]


def test_api_tokens_are_made_shown_once_used_and_revoked(app, sample_records):
    client = logged_in(app, "alice")
    made = client.post("/account/tokens", data={"name": "<script>alert(1)</script>", "csrf": session_csrf(client)})
    assert made.status_code == 200 and "<script>alert(1)</script>" not in made.text and "&lt;script&gt;" in made.text
    value = made.text.split("<code>")[1].split("</code>")[0]
    assert value.startswith("pst_") and value not in client.get("/account").text  # shown once
    api = TestClient(app, raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {value}"}
    ids = [record["id"] for record in sample_records[:2]]
    assert api.post("/api/library/tag", json={"tag": "mine", "paper_ids": ids}, headers=headers).status_code == 200
    assert Library(app.state.accounts.store, "alice").tagged("mine") == ids
    token_id = app.state.accounts.api_tokens("alice")[0].id
    assert client.post(f"/account/tokens/{token_id}/revoke", data={"csrf": session_csrf(client)},
                       follow_redirects=False).status_code == 303
    assert api.get("/api/library", headers=headers).status_code == 401
    assert api.post("/api/library/remove", json={"paper_ids": ids}, headers=headers).status_code == 401
    assert Library(app.state.accounts.store, "alice").tagged("mine") == ids


def test_changing_the_password_keeps_this_session_and_ends_the_others(app):
    here, elsewhere = logged_in(app, "alice"), logged_in(app, "alice")
    wrong = here.post("/account/password", data={"csrf": session_csrf(here), "password": "not-it", "new_password": "n" * 12,
                                                   "password_again": "n" * 12})
    assert wrong.status_code == 422 and "current password is wrong" in wrong.text
    done = here.post("/account/password", data={"csrf": session_csrf(here), "password": PASSWORDS["alice"],
                                                  "new_password": "n" * 12, "password_again": "n" * 12})
    assert done.status_code == 200 and "Password changed" in done.text
    assert here.get("/account").status_code == 200
    assert elsewhere.get("/account", headers=HTML, follow_redirects=False).status_code == 303


def test_wrong_current_passwords_are_rate_limited_like_logins(app, clock):
    here = logged_in(app, "alice")

    def change(current: str, new: str = "n" * 12):
        return here.post("/account/password", data={"csrf": session_csrf(here), "password": current,
                                                     "new_password": new, "password_again": new})

    short = change(PASSWORDS["alice"], "short")  # the right current password: not a guess, not counted
    assert short.status_code == 422 and "at least 10 characters" in short.text
    for _ in range(MAX_FAILURES_PER_ACCOUNT):
        assert change("not-it").status_code == 422
    limited = change(PASSWORDS["alice"])  # even the right password, while the account is locked
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) == WINDOW_S
    assert login(_client(app), "alice").status_code == 429  # one count of guesses at alice's password
    assert app.state.accounts.check_password("alice", PASSWORDS["alice"]) == "alice"  # unchanged
    clock.advance(WINDOW_S)
    done = change(PASSWORDS["alice"])
    assert done.status_code == 200 and "Password changed" in done.text


def test_a_reset_link_sets_a_new_password_and_ends_every_session(app):
    token, _ = app.state.accounts.create_reset("alice")
    before = logged_in(app, "alice")
    client = _client(app)
    form = client.get(f"/reset?token={token}&lang=zh")
    assert form.status_code == 200 and "设置新密码" in form.text and "alice" in form.text
    fields = {"csrf": csrf_of(form.text), "token": token, "password": "n" * 12, "password_again": "n" * 12, "lang": "zh"}
    assert client.post("/reset", data={**fields, "csrf": ""}).status_code == 403
    other_browser = csrf_of(_client(app).get("/login").text)
    assert client.post("/reset", data={**fields, "csrf": other_browser}).status_code == 403
    assert client.post("/reset", data={**fields, "password_again": "m" * 12}).status_code == 422
    done = client.post("/reset", data=fields)
    assert done.status_code == 200 and "请用新密码登录" in done.text and 'action="/login"' in done.text
    assert before.get("/account", headers=HTML, follow_redirects=False).status_code == 303  # its session ended
    assert login(_client(app), "alice", "n" * 12).status_code == 303
    assert login(_client(app), "alice").status_code == 401  # the old password
    assert client.get(f"/reset?token={token}").status_code == 404  # used up
    again = client.post("/reset", data={**fields, "csrf": csrf_of(client.get("/login").text), "password": "o" * 12,
                                        "password_again": "o" * 12})
    assert again.status_code == 422 and "unknown, used or expired" in again.text
    assert app.state.accounts.check_password("alice", "n" * 12) == "alice"


def test_a_reset_link_forgets_the_accounts_failed_logins(app):
    client = _client(app)
    for _ in range(MAX_FAILURES_PER_ACCOUNT):
        login(client, "alice", "not-the-password")
    assert login(client, "alice").status_code == 429
    token, _ = app.state.accounts.create_reset("alice")
    form = client.get(f"/reset?token={token}")
    fields = {"csrf": csrf_of(form.text), "token": token, "password": "n" * 12, "password_again": "n" * 12}
    assert client.post("/reset", data=fields).status_code == 200
    assert login(client, "alice", "n" * 12).status_code == 303


def test_the_account_page_lists_the_sessions_and_signs_out_the_others(app):
    here = _client(app)
    here.headers["User-Agent"] = "HereBrowser/1.0"
    assert login(here, "alice").status_code == 303
    elsewhere = _client(app)
    elsewhere.headers["User-Agent"] = "<script>alert(1)</script> Elsewhere/2"
    assert login(elsewhere, "alice").status_code == 303
    bob = logged_in(app, "bob")
    page = here.get("/account").text
    assert "HereBrowser/1.0" in page and "&lt;script&gt;alert(1)&lt;/script&gt; Elsewhere/2" in page
    assert "<script>alert(1)" not in page and page.count('<li class="session') == 2 and "current-session" in page
    for value in (here.cookies.get("papersift_session"), elsewhere.cookies.get("papersift_session")):
        assert value and value not in page and digest(value) not in page  # neither the cookie nor its hash
    assert here.post("/account/sessions/end-others", data={}).status_code == 403  # no CSRF token
    assert here.post("/account/sessions/end-others", data={"csrf": session_csrf(bob)}).status_code == 403
    assert elsewhere.get("/account", follow_redirects=False).status_code == 200
    done = here.post("/account/sessions/end-others", data={"csrf": session_csrf(here)})
    assert done.status_code == 200 and "Signed out 1 other session(s)." in done.text and done.text.count('<li class="session') == 1
    assert elsewhere.get("/account", headers=HTML, follow_redirects=False).status_code == 303
    assert here.get("/account").status_code == 200 and bob.get("/account").status_code == 200


def test_public_pages_work_anonymously_with_no_forms_and_a_login_link(app):
    client = _client(app)
    page = client.get("/?q=learning", headers=HTML)
    assert page.status_code == 200 and 'href="/login?lang=' in page.text and 'action="/saved"' not in page.text
    logged = logged_in(app, "alice").get("/?q=learning")
    assert 'action="/saved"' in logged.text and 'name="token"' not in logged.text  # the session, not the write token


def test_the_sign_up_form_states_the_password_rules(app):
    """Issue 28 item 13: the rules (accounts/passwords.py) were only learnt from a refusal."""
    from papersift.accounts.passwords import MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS

    token, _ = app.state.accounts.invite()
    zh = _client(app).get(f"/signup?invite={token}&lang=zh").text
    en = _client(app).get(f"/signup?invite={token}&lang=en").text
    assert f"密码长度为 {MIN_PASSWORD_CHARS} 到 {MAX_PASSWORD_CHARS} 个字符" in zh
    assert f"A password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters" in en
