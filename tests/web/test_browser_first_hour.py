"""Issue 28's "done when", as a new user does it, in Chromium with JavaScript on and the page in
Chinese: `quickstart` over a data dir (its real background chain running), the sign-in link it
prints, three papers tagged from the results, the tag's recommendations (listed once the
background chain has prepared them, meanwhile a Chinese line saying so) each with its own reason
in Chinese, a search saved, and its private feed link in the page parsing as Atom. Screenshots
of each step are kept in artifacts/screenshots/first-hour-*.png."""

from __future__ import annotations

import gzip
import time
from urllib.parse import quote

import feedparser
import orjson
import pytest
import uvicorn
from typer.testing import CliRunner

from papersift.cli import app
from served_papers import CSP_WATCH, SCREENSHOTS, serve_in_thread, watched_page

pytestmark = pytest.mark.browser
TAG = "图学习"


def test_a_new_user_in_the_first_hour(browser, sample_records, tmp_path, monkeypatch):
    corpus = tmp_path / "ml_papers"
    corpus.mkdir()
    with gzip.open(corpus / "papers.jsonl.gz", "wb") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[:300]))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen: dict = {}

    def walk(server_app, **options) -> None:  # what a person does while quickstart serves
        token = server_app.state.settings.write_token
        with serve_in_thread(server_app) as base_url:
            context = browser.new_context(base_url=base_url, locale="zh-CN")
            context.add_init_script(CSP_WATCH)
            page, errors = watched_page(context)
            page.goto(f"/signin?token={token}&next=" + quote("/?q=learning&mode=keyword&lang=zh", safe=""))
            page.wait_for_url("**/?q=learning&mode=keyword&lang=zh")
            page.screenshot(path=SCREENSHOTS / "first-hour-1-results.png", full_page=False)
            hits = page.locator("article.hit")
            assert hits.count() >= 3
            for number in range(3):
                hits.nth(number).locator(".tag-input").fill(TAG)
                hits.nth(number).locator("button.add-tag").click()
                hits.nth(number).locator(".marks-now a.badge.tag", has_text=TAG).wait_for()
            tagged = [hits.nth(number).locator("h2 a").inner_text() for number in range(3)]

            page.goto("/library?lang=zh")
            page.locator("a.recommend-link").first.click()
            page.wait_for_url("**/library/recommend?**")
            waiting = []
            deadline = time.monotonic() + 300
            while page.locator("li.recommendation").count() == 0:  # the background chain prepares the features
                waiting.append(page.locator("p.notice").all_inner_texts())
                assert time.monotonic() < deadline, f"no recommendations after 300 s: {waiting[-1]}"
                time.sleep(2)
                page.reload()
            page.screenshot(path=SCREENSHOTS / "first-hour-2-recommendations.png", full_page=True)
            reasons = page.locator("li.recommendation p.because").all_inner_texts()
            shown = page.locator("li.recommendation > a.hit-link").all_inner_texts()
            seen.update(waiting=waiting, reasons=reasons, shown=shown, tagged=tagged)

            page.goto("/?q=graph&mode=keyword&lang=zh")
            page.fill("form.save-search input[name=name]", "图")
            page.click("form.save-search button[type=submit]")
            page.wait_for_url("**/saved/1?lang=zh")
            page.screenshot(path=SCREENSHOTS / "first-hour-3-saved.png", full_page=False)
            feed_link = page.locator("a.feed-link")
            assert feed_link.count() == 1
            feed = feedparser.parse(page.request.get(feed_link.get_attribute("href")).body())
            seen.update(feed_bozo=feed.bozo, feed_entries=len(feed.entries), feed_title=feed.feed.get("title", ""),
                        errors=errors, csp=page.evaluate("window.__csp"))
            context.close()

    monkeypatch.setattr(uvicorn, "run", walk)
    monkeypatch.delenv("PAPERSIFT_WRITE_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["quickstart", "--data-dir", str(tmp_path / "data"), "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "/signin?token=" in result.output
    assert seen["reasons"] and len(seen["reasons"]) == len(seen["shown"])
    assert all(reason.startswith(f"与标签“{TAG}”中的《") for reason in seen["reasons"])
    assert len(set(seen["reasons"])) == len(seen["reasons"])  # each its own
    assert not set(seen["shown"]) & set(seen["tagged"])
    assert all("正在后台准备" in " ".join(texts) for texts in seen["waiting"])  # while waiting: said in Chinese
    assert not seen["feed_bozo"] and seen["feed_entries"] > 0 and "图" in seen["feed_title"]
    assert seen["errors"] == [] and seen["csp"] == []


def test_theme_switch_help_overlay_selection_after_back_and_phone_filters(browser, live_server):
    """Issue 28 item 13: a remembered light / dark switch, a `?` help overlay, the selection kept
    after `o` and Back, and the filters reachable from the top of the results on a phone."""
    context = browser.new_context(base_url=live_server, locale="en-US", color_scheme="light")
    context.add_init_script(CSP_WATCH)
    page = context.new_page()
    page.goto("/?q=learning&mode=keyword&lang=en")
    switch = page.locator("button.theme-switch")
    assert switch.is_visible() and switch.inner_text() == "Dark"
    switch.click()
    page.reload()  # remembered
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == "rgb(13, 17, 23)"
    assert page.locator("button.theme-switch").inner_text() == "Light"

    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible() and "Keyboard shortcuts" in page.locator("#keys-help").inner_text()
    page.keyboard.press("Escape")
    assert not page.locator("#keys-help").is_visible()

    page.keyboard.press("j")
    page.keyboard.press("j")
    second = page.locator("article.hit").nth(1).locator("a.hit-link").get_attribute("href")
    page.keyboard.press("o")
    page.wait_for_url(f"**{second.split('?')[0]}?**")
    page.go_back()
    page.wait_for_selector("article.hit.current")
    assert page.locator("article.hit").nth(1).get_attribute("class").split().count("current") == 1
    assert page.evaluate("document.activeElement.getAttribute('href')") == second
    page.screenshot(path=SCREENSHOTS / "first-hour-4-dark-back.png")
    assert page.evaluate("window.__csp") == []
    context.close()

    phone = browser.new_context(base_url=live_server, locale="en-US", viewport={"width": 390, "height": 800})
    tab = phone.new_page()
    tab.goto("/?q=learning&mode=keyword&lang=en")
    to_filters = tab.locator("a.to-filters")
    assert to_filters.is_visible()
    assert to_filters.bounding_box()["y"] < tab.locator("article.hit").first.bounding_box()["y"] < 800
    to_filters.click()
    assert tab.evaluate("Math.abs(document.getElementById('filters').getBoundingClientRect().top) < 50")
    tab.screenshot(path=SCREENSHOTS / "first-hour-5-phone-filters.png")
    phone.close()
    wide = browser.new_context(base_url=live_server, viewport={"width": 1280, "height": 900}).new_page()
    wide.goto("/?q=learning&mode=keyword&lang=en")
    assert not wide.locator("a.to-filters").is_visible()  # beside the results already
    wide.context.close()
