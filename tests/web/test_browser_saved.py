"""Issue 18's "done when" in a real browser (Debian's chromium, Playwright): save a search with
the page's form, new matching papers arrive, the saved search's page marks exactly them new,
the private feed the page links parses with feedparser and lists them, and `papersift digest`
delivers one message with exactly those papers to a local SMTP server; a second run sends
nothing."""

from __future__ import annotations

import feedparser
import httpx
import pytest

from digest_runs import run_digest
from papersift.server import create_app
from served_papers import TEST_HOSTS, build_served_data_dir, serve_in_thread
from write_checks import synthetic_records

pytestmark = pytest.mark.browser

TOKEN = "browser-saved-token-24-chars"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FEED_HREF = "() => [...document.querySelectorAll('head link[rel=alternate][type=\"application/atom+xml\"]')].map(l => l.href)"


def test_save_see_new_follow_the_feed_and_get_the_digest(browser, sample_records, tmp_path, smtp_server):
    inbox, port = smtp_server
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:60])
    app = create_app(data_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with serve_in_thread(app) as base_url:  # the session's chromium (tests/web/conftest.py): one Playwright per process
        page = browser.new_context(base_url=base_url, locale="en-US").new_page()
        page.goto(f"/signin?token={TOKEN}")  # once per browser
        page.goto("/?q=zebrafish&mode=keyword&sort=newest&lang=en")
        page.fill("form.save-search input[name=name]", "Zebrafish")
        page.click("form.save-search button[type=submit]")
        page.wait_for_url("**/saved/1?lang=en")
        assert page.locator("li.is-new").count() == 0

        arriving = synthetic_records("zebra", 3)
        for record in arriving:
            record["title"] = f"Zebrafish models {record['id']}"
        assert httpx.post(f"{base_url}/api/papers", json=arriving, headers=AUTH).status_code == 200
        assert httpx.post(f"{base_url}/api/feed-token", headers=AUTH).status_code == 200
        page.reload()
        titles = sorted(record["title"] for record in arriving)
        assert sorted(page.locator("li.is-new a").all_inner_texts()) == titles

        hrefs = page.evaluate(FEED_HREF)
        assert len(hrefs) == 1 and "/feeds/private/" in hrefs[0]
        response = page.request.get(hrefs[0])
        feed = feedparser.parse(response.body())
        assert response.ok and not feed.bozo and sorted(entry.title for entry in feed.entries) == titles
        page.context.close()

    env = {"PAPERSIFT_SMTP_HOST": "127.0.0.1", "PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_SMTP_STARTTLS": "0",
           "PAPERSIFT_DIGEST_TO": "reader@example.org"}
    assert run_digest(data_dir, env=env).delivery.delivered == [1]
    assert len(inbox.messages) == 1
    body = inbox.messages[0][1].get_body(("plain",)).get_content()
    assert sorted(line[2:] for line in body.splitlines() if line.startswith("- ")) == titles
    assert run_digest(data_dir, env=env).delivery.delivered == [] and len(inbox.messages) == 1
