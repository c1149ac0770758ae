"""Issue 17's "done when" in a real browser (Debian's chromium, Playwright): a new user tags
three papers from the search results (keys for one, clicks for the others; the page updates in
place, no reload), marks one "not interested", opens the tag's recommendations (the marked one
absent, explanations shown), adds a note on the library page, downloads the library as BibTeX
and imports it with the import form of a server over a fresh data dir: every entry matched, and
the tags, the mark and the note came along."""

from __future__ import annotations

import pytest

from papersift.library.entries import Library
from papersift.library.features import build_features
from papersift.server import create_app
from served_papers import CSP_WATCH, TEST_HOSTS, build_served_data_dir, serve_in_thread

pytestmark = pytest.mark.browser

TOKEN = "browser-library-token-24-chars"
TAG = "to cite"
NOTE = "Check the ablation <table> & Table 3"


def _tag_shown(page, hit, tag: str) -> None:
    hit.locator(".marks-now a.badge.tag", has_text=tag).wait_for()


def test_tag_mark_recommend_note_export_and_reimport(browser, sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:60])
    build_features(data_dir)  # `papersift library features`: a server never computes them
    app = create_app(data_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with serve_in_thread(app) as base_url:  # the session's chromium (tests/web/conftest.py)
        context = browser.new_context(base_url=base_url, locale="en-US", accept_downloads=True)
        context.add_init_script(CSP_WATCH)
        page = context.new_page()
        page.goto(f"/signin?token={TOKEN}&next=/%3Fq%3Dlearning%26mode%3Dkeyword%26lang%3Den")  # once per browser
        page.wait_for_url("**/?q=learning&mode=keyword&lang=en")
        page.evaluate("window.__stayed = true")  # gone if anything below reloads the page
        hits = page.locator("article.hit")
        assert hits.count() >= 5
        titles = [hits.nth(number).locator("h2 a").inner_text() for number in range(4)]

        page.evaluate("document.activeElement.blur()")  # keys act outside text boxes
        page.keyboard.press("j")  # the first hit, by keys: j selects, t focuses its tag box
        page.keyboard.press("t")
        assert page.evaluate("document.activeElement.id") == "tag-1"
        page.keyboard.type(TAG)
        page.keyboard.press("Enter")
        _tag_shown(page, hits.nth(0), TAG)
        for number in (1, 2):  # two more by clicks: the tag offered by the datalist, typed
            hits.nth(number).locator(".tag-input").click()
            page.keyboard.type(TAG)
            hits.nth(number).locator("button.add-tag").click()
            _tag_shown(page, hits.nth(number), TAG)
        hits.nth(3).locator("button.dislike").click()
        hits.nth(3).locator(".marks-now .badge.not-interested").wait_for()
        assert hits.nth(3).locator("button.dislike").get_attribute("aria-pressed") == "true"
        assert page.evaluate("window.__stayed") is True

        page.goto("/library?lang=en")
        page.locator("a.recommend-link").click()
        page.wait_for_url("**/library/recommend?**")
        shown = page.locator("li.recommendation > a").all_inner_texts()
        assert len(shown) == 20 and not set(shown) & set(titles)  # the marked one (and the tagged) absent
        because = page.locator("li.recommendation p.because").all_inner_texts()
        assert len(because) == 20 and all(line.startswith("Most like “") and f"in tag “{TAG}”" in line for line in because)

        page.goto("/library?lang=en")
        entry = page.locator("li.library-entry", has_text=titles[1])
        entry.locator("textarea").fill(NOTE)
        entry.locator("button.save-entry").click()
        page.wait_for_url("**/library?lang=en")
        assert page.locator("li.library-entry", has_text=titles[1]).locator("p.note").inner_text() == f"Note: {NOTE}"

        with page.expect_download() as download:
            page.locator("a", has_text="bibtex").click()
        exported = tmp_path / "library.bib"
        download.value.save_as(exported)
        assert page.evaluate("window.__csp") == []
        context.close()

    fresh_dir = build_served_data_dir(tmp_path / "fresh", sample_records[:60])
    fresh_app = create_app(fresh_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with serve_in_thread(fresh_app) as base_url:
        context = browser.new_context(base_url=base_url, locale="en-US")
        page = context.new_page()
        page.goto("/library?lang=en")
        page.locator("p.sign-in-hint a").click()  # the sign-in form, typed once, back to the library
        page.fill("form.signin-form input[name=token]", TOKEN)
        page.press("form.signin-form input[name=token]", "Enter")
        page.wait_for_url("**/library?lang=en")
        assert page.locator("li.library-entry").count() == 0
        page.set_input_files("form.library-import input[name=file]", exported)
        page.locator("form.library-import button[type=submit]").click()
        page.wait_for_url("**/library/import")
        assert page.locator("p.import-summary").inner_text() == "4 of 4 entries matched (bibtex)."
        assert page.locator("p.import-all-matched").count() == 1
        context.close()

    before, after = Library.open(data_dir, readonly=True), Library.open(fresh_dir, readonly=True)
    assert after.tags() == before.tags() == {TAG: 3}
    assert after.rated(-1) == before.rated(-1) and len(after.rated(-1)) == 1
    assert after.entry(before.tagged(TAG)[1]).note == NOTE
    assert {entry.paper_id for entry in after.entries()} == {entry.paper_id for entry in before.entries()}


def test_a_recommendation_is_liked_tagged_and_marked_not_interested_in_place_by_keys_and_clicks(browser, sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:60])
    Library.open(data_dir).tag([record["id"] for record in sample_records[:3]], TAG)
    build_features(data_dir)
    app = create_app(data_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with serve_in_thread(app) as base_url:
        context = browser.new_context(base_url=base_url, locale="en-US")
        context.add_init_script(CSP_WATCH)
        page = context.new_page()
        page.goto(f"/signin?token={TOKEN}")
        page.goto(f"/library/recommend?tag={TAG}&lang=en&k=5")
        page.evaluate("window.__stayed = true")  # gone if a click below reloads the page
        rows = page.locator("li.recommendation")
        assert rows.count() == 5
        ids = [rows.nth(number).locator("input[name^=paper-]").get_attribute("value") for number in range(2)]
        page.locator("h1").click()  # the keys act on the page, not on a text box
        page.keyboard.press("j")  # by keys, as on search hits: j selects the first, l likes it
        page.keyboard.press("l")
        rows.nth(0).locator(".marks-now .badge.liked").wait_for()
        assert rows.nth(0).locator("button.like").get_attribute("aria-pressed") == "true"
        page.keyboard.press("j")  # the second: t focuses its tag box
        page.keyboard.press("t")
        page.keyboard.type("later")
        page.keyboard.press("Enter")
        rows.nth(1).locator(".marks-now a.badge.tag", has_text="later").wait_for()
        rows.nth(1).locator("button.dislike").click()
        rows.nth(1).locator(".marks-now .badge.not-interested").wait_for()
        assert page.evaluate("window.__stayed") is True and page.evaluate("window.__csp") == []
        context.close()
    library = Library.open(data_dir, readonly=True)
    assert library.rated(1) == [ids[0]] and library.rated(-1) == [ids[1]] and library.tagged("later") == [ids[1]]
