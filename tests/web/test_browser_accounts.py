"""Accounts in a real browser (Debian's chromium, Playwright): sign up by invitation, make an
API token on the account page, tag a paper with it, see it on /library, log out; another user
logged in does not see it. Forms sent with the keyboard (Enter), no JavaScript needed."""

from __future__ import annotations

import httpx
import pytest

from account_clients import PASSWORDS, Clock, accounts_app
from served_papers import build_served_data_dir, serve_in_thread, watched_page

pytestmark = pytest.mark.browser
TAG = "carols-private-tag"


def test_sign_up_tag_log_out_and_another_user_sees_nothing(browser, sample_records, tmp_path):
    app = accounts_app(build_served_data_dir(tmp_path / "data", sample_records[:60]), Clock(), users=("bob",))
    invitation, _ = app.state.accounts.invite()
    paper = sample_records[0]
    with serve_in_thread(app) as base_url:
        carol = browser.new_context(base_url=base_url, locale="en-US", java_script_enabled=False).new_page()
        carol.goto(f"/signup?invite={invitation}&lang=en")
        carol.fill("input[name=name]", "carol")
        carol.fill("input[name=password]", "carols-password")
        carol.fill("input[name=password_again]", "carols-password")
        carol.press("input[name=password_again]", "Enter")
        carol.wait_for_url("**/account?lang=en")
        carol.fill("form.token-form input[name=name]", "script")
        carol.press("form.token-form input[name=name]", "Enter")
        token = carol.locator("p.new-token code").inner_text()
        tagged = httpx.post(f"{base_url}/api/library/tag", json={"tag": TAG, "paper_ids": [paper["id"]]},
                            headers={"Authorization": f"Bearer {token}"})
        assert tagged.status_code == 200
        carol.goto("/library?lang=en")
        assert TAG in carol.content() and paper["title"][:40] in carol.content()
        carol.goto("/account?lang=en")
        carol.click("form.logout-form button")
        carol.wait_for_url("**/login?lang=en")
        carol.goto("/library?lang=en")
        assert "/login" in carol.url and TAG not in carol.content()

        bob = browser.new_context(base_url=base_url, locale="en-US").new_page()
        bob.goto("/library?lang=en")
        bob.fill("input[name=name]", "bob")
        bob.fill("input[name=password]", PASSWORDS["bob"])
        bob.press("input[name=password]", "Enter")
        bob.wait_for_url("**/library?lang=en")
        assert "(bob)" in bob.content() and TAG not in bob.content()
        bob.goto(f"/library?tag={TAG}&lang=en")
        assert paper["title"][:40] not in bob.content()
        carol.context.close()
        bob.context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_account_pages_have_no_serious_accessibility_violations(browser, sample_records, tmp_path, lang):
    """axe-core (as tests/web/test_accessibility.py runs it) on the login, sign-up, reset and account pages."""
    from test_accessibility import AXE, BLOCKING, PINNED

    assert AXE.is_file(), f"axe-core missing at {AXE}: run scripts/setup.sh (npm install axe-core@{PINNED}) or set $PAPERSIFT_AXE"
    app = accounts_app(build_served_data_dir(tmp_path / "data", sample_records[:20]), Clock(), users=("bob",))
    invitation, _ = app.state.accounts.invite()
    reset, _ = app.state.accounts.create_reset("bob")
    with serve_in_thread(app) as base_url:
        context = browser.new_context(base_url=base_url)
        context.add_init_script(AXE.read_text())
        tab = context.new_page()
        found = {}
        for name, path in (("login", "/login"), ("signup", f"/signup?invite={invitation}"), ("reset", f"/reset?token={reset}"),
                           ("account", "/account")):
            if name == "account":
                tab.goto(f"/login?next=/account&lang={lang}")
                tab.fill("input[name=name]", "bob")
                tab.fill("input[name=password]", PASSWORDS["bob"])
                tab.press("input[name=password]", "Enter")
                tab.wait_for_url("**/account")
            response = tab.goto(f"{path}{'&' if '?' in path else '?'}lang={lang}")
            assert response.status == 200
            found[name] = [violation for violation in tab.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".map(v => ({id: v.id, impact: v.impact, help: v.help}))") if violation["impact"] in BLOCKING]
        context.close()
    assert found == {"login": [], "signup": [], "reset": [], "account": []}


def test_a_signed_in_user_tags_likes_and_dismisses_with_javascript_on(browser, sample_records, tmp_path):
    """Issue 28 item 1: with accounts the marks form has no token field; static/library.js sent
    the form by reading input[name=token] and threw (no request, no message). Now the hit
    updates in place, no reload, and the marks are in the user's library."""
    from served_papers import CSP_WATCH

    app = accounts_app(build_served_data_dir(tmp_path / "data", sample_records[:60]), Clock(), users=("bob",))
    with serve_in_thread(app) as base_url:
        context = browser.new_context(base_url=base_url, locale="en-US")
        context.add_init_script(CSP_WATCH)
        page, errors = watched_page(context)
        page.goto("/login?next=/&lang=en")
        page.fill("input[name=name]", "bob")
        page.fill("input[name=password]", PASSWORDS["bob"])
        page.press("input[name=password]", "Enter")
        page.wait_for_url(f"{base_url}/")
        page.goto("/?q=learning&mode=keyword&lang=en")
        assert page.locator("form.marks-form input[name=token]").count() == 0
        page.evaluate("window.__stayed = true")  # gone if anything below reloads the page
        hits = page.locator("article.hit")
        assert hits.count() >= 3
        hits.nth(0).locator(".tag-input").fill(TAG)
        hits.nth(0).locator("button.add-tag").click()
        hits.nth(0).locator(".marks-now a.badge.tag", has_text=TAG).wait_for()
        hits.nth(1).locator("button.like").click()
        hits.nth(1).locator(".marks-now .badge.liked").wait_for()
        hits.nth(2).locator("button.dislike").click()
        hits.nth(2).locator(".marks-now .badge.not-interested").wait_for()
        assert page.evaluate("window.__stayed") is True
        assert errors == [] and page.evaluate("window.__csp") == []
        titles = [hits.nth(number).locator("h2 a").inner_text() for number in range(3)]
        page.reload()  # the marks were stored: the server draws them
        hits = page.locator("article.hit")
        assert [hits.nth(number).locator("h2 a").inner_text() for number in range(3)] == titles
        assert hits.nth(0).locator(".marks-now a.badge.tag").all_inner_texts() == [TAG]
        assert hits.nth(1).locator(".marks-now .badge.liked").count() == 1
        assert hits.nth(2).locator(".marks-now .badge.not-interested").count() == 1
        context.close()
