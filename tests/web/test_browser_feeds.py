"""Feeds and the Zotero hand-off in a real browser (Debian's chromium, Playwright): what the
page's <head> links and carries once the browser has parsed it, and the feed it links."""

from __future__ import annotations

from urllib.parse import quote

import feedparser
import pytest

from served_papers import HOSTILE_ID, MANY_AUTHORS_ID, XSS_TITLE

pytestmark = pytest.mark.browser

FEED_HREF = "() => [...document.querySelectorAll('head link[rel=alternate][type=\"application/atom+xml\"]')].map(l => l.href)"
# Embedded Metadata reads /html/head/meta by name; in document order.
HEAD_META = ("() => [...document.head.querySelectorAll('meta[name^=citation_]')]"
             ".map(m => [m.getAttribute('name'), m.getAttribute('content')])")
# COinS.js: spans of class Z3988 with a title, decoded the way OpenURL.parseContextObject does.
COINS = """() => [...document.querySelectorAll('span.Z3988[title]')].map(span => span.title.split('&').map(part => {
  const [key, value] = part.split('=');
  return [key, decodeURIComponent(value.replace(/\\+|%2[bB]/g, ' '))];
}))"""


@pytest.fixture(scope="module")
def tab(browser, live_server):
    """A tab of the session's chromium (tests/web/conftest.py): one Playwright per process."""
    context = browser.new_context(base_url=live_server, locale="en-US")
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def linked_feed(tab) -> feedparser.FeedParserDict:
    hrefs = tab.evaluate(FEED_HREF)
    assert len(hrefs) == 1
    response = tab.request.get(hrefs[0])
    assert response.ok and response.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.body())
    assert not feed.bozo and feed.feed.id and feed.feed.title and feed.feed.updated and feed.entries
    assert all(entry.id and entry.title and entry.updated for entry in feed.entries)
    return feed


def test_the_search_page_links_a_feed_of_its_search(tab, live_server):
    tab.goto("/?q=transformer&mode=keyword&page=2")
    feed = linked_feed(tab)
    api = tab.request.get("/api/search?q=transformer&mode=keyword&sort=newest&size=30").json()
    assert [entry.id for entry in feed.entries] == [f"{live_server}/paper/{quote(hit['paper']['id'], safe='')}"
                                                    for hit in api["hits"]]
    assert tab.locator("a.feed-link").get_attribute("type") == "application/atom+xml"


@pytest.mark.parametrize("path", ["/venue/NeurIPS/2023", "/author/" + quote("Author Number3")])
def test_venue_and_author_pages_link_their_feed(tab, path):
    tab.goto(path)
    feed = linked_feed(tab)
    if path.startswith("/author/"):
        assert [entry.id.rsplit("/", 1)[1] for entry in feed.entries] == [MANY_AUTHORS_ID]


def test_the_paper_page_head_carries_the_citation_tags_as_text(tab, live_server):
    tab.goto(f"/paper/{MANY_AUTHORS_ID}")
    tags = tab.evaluate(HEAD_META)
    assert [value for name, value in tags if name == "citation_author"] == [f"Author Number{i}" for i in range(1, 16)]
    assert ["citation_pdf_url", "https://example.org/many.pdf"] in tags
    assert ["citation_abstract_html_url", f"{live_server}/paper/{MANY_AUTHORS_ID}"] in tags
    tab.goto(f"/paper/{HOSTILE_ID}")
    tags = dict(tab.evaluate(HEAD_META))
    assert tags["citation_title"] == XSS_TITLE and "citation_pdf_url" not in tags  # javascript: PDF left out
    assert tab.evaluate("document.head.querySelectorAll('img, script:not([src])').length") == 0
    assert tab.dialogs == []


def test_results_carry_coins_that_decode_to_each_hits_title_and_authors(tab):
    tab.goto("/?q=onerror OR collaborators&mode=keyword")
    objects = tab.evaluate(COINS)
    titles = tab.locator("article.hit h2 a").all_inner_texts()
    assert len(objects) == len(titles) >= 2
    decoded = [dict(pairs) for pairs in objects]
    assert [item["rft.atitle"] for item in decoded] == titles
    hostile = next(pairs for pairs in objects if ["rft.atitle", XSS_TITLE] in pairs)
    assert [value for key, value in hostile if key == "rft.au"] == ["Mallory <b>Evil</b>", "Eve \"quote\" O'Hare"]
    assert all(item["rft.genre"] == "proceeding" for item in decoded)
    assert tab.dialogs == []
