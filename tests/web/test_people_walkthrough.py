"""Issue 19's walk-through in a real browser (chromium): from a hit, open an author, see their
papers and co-authors, click a co-author in the graph, reach a venue page, filter to papers
with code. Screenshots of each step go to artifacts/screenshots/ (look at them)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from served_papers import CSP_WATCH, SCREENSHOTS

pytestmark = pytest.mark.browser


def shot(tab, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_hit_author_coauthor_venue_papers_with_code(browser, live_server, scheme):
    context = browser.new_context(base_url=live_server, locale="en-US", color_scheme=scheme,
                                  viewport={"width": 1280, "height": 900})
    context.add_init_script(CSP_WATCH)
    tab = context.new_page()
    tab.goto("/?q=github&mode=keyword&lang=en")  # abstracts that name their repository
    # a hit with a code link and at least two authors
    hit = tab.locator("article.hit").filter(has=tab.locator("a.badge.code")).filter(
        has=tab.locator(".authors .shown a:nth-of-type(2)")).first
    title = hit.locator("h2 a").inner_text()
    first, second = hit.locator(".authors .shown a").nth(0).inner_text(), hit.locator(".authors .shown a").nth(1).inner_text()

    hit.locator(".authors .shown a").nth(0).click()
    tab.wait_for_url(re.compile(r"/author/"))
    assert tab.locator("h1").inner_text() == first
    assert title in tab.locator(".paper-list").inner_text()  # their papers
    assert tab.locator(".coauthors a", has_text=second).count() == 1  # their co-authors, listed
    node = tab.locator("svg.coauthor-graph a.coauthor", has_text=second)  # and drawn
    assert node.count() == 1
    shot(tab, f"walk-1-author-{scheme}")

    author_url = tab.url
    node.click()
    tab.wait_for_url(lambda url: "/author/" in url and url != author_url)
    assert tab.locator("h1").inner_text() == second
    row = tab.locator(".paper-list li", has_text=title)  # the paper they wrote together
    assert row.count() == 1
    shot(tab, f"walk-2-coauthor-{scheme}")

    row.locator("a[href^='/venue/']").click()
    tab.wait_for_url(re.compile(r"/venue/[^/?]+/\d{4}"))
    venue, year = urlsplit(tab.url).path.split("/")[2:4]
    assert tab.locator("h1").inner_text().split() == [venue, year]
    shot(tab, f"walk-3-venue-{scheme}")

    tab.locator("a.with-code").click()
    tab.wait_for_url(re.compile(r"has_code=true"))
    query = parse_qs(urlsplit(tab.url).query)
    assert query["venue"] == [venue] and query["year_from"] == query["year_to"] == [year]
    hits = tab.locator("article.hit")
    assert hits.count() >= 1  # the paper we started from has code
    assert hits.count() == tab.locator("article.hit a.badge.code").count()  # every hit has a code link
    assert tab.locator("[data-facet=code] a.facet-link.active").count() == 1
    shot(tab, f"walk-4-with-code-{scheme}")
    assert tab.evaluate("window.__csp") == []
    context.close()
