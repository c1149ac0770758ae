"""The issue's five examples in a real browser, in the default (hybrid) mode: a title, a person,
an id, a query that matches nothing and a misspelling, and a summary that agrees with its facets.
Screenshots go to artifacts/screenshots/nav-*.png (look at them).

The slice is the fixture corpus with pseudo-random vectors (tests/hybrid_service.py), so the
hybrid mode runs its whole path; which papers the vectors like is not what is checked."""

from __future__ import annotations

import re

import pytest
from tests.search.conftest import navigable_copy

from hybrid_service import hybrid_service
from papersift.server import create_app
from served_papers import SCREENSHOTS, TEST_HOSTS, serve_in_thread

pytestmark = pytest.mark.browser
TITLE_ID = "NeurIPS-2016-6945"  # a title the fixture corpus has once


@pytest.fixture(scope="module")
def nav_server(sample_data_dir, tmp_path_factory):
    data_dir = navigable_copy(sample_data_dir, tmp_path_factory.mktemp("nav_browser"))
    service, _, _ = hybrid_service(data_dir)
    with serve_in_thread(create_app(data_dir, service=service, allowed_hosts=TEST_HOSTS)) as base_url:
        yield base_url, service


@pytest.fixture()
def page(browser, nav_server):
    context = browser.new_context(base_url=nav_server[0], locale="en-US", viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


def typed(tab, words: str) -> None:
    tab.goto("/?lang=en")
    tab.fill("#q", words)
    tab.press("#q", "Enter")
    tab.wait_for_load_state()


def shot(tab, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"nav-{name}.png"), full_page=False)


def test_a_title_puts_its_paper_first(page, nav_server):
    title = nav_server[1].get(TITLE_ID).title
    typed(page, title.lower())
    assert page.locator("article.hit").first.locator("h2 a").get_attribute("href").startswith(f"/paper/{TITLE_ID}")
    shot(page, "1-title")


def test_a_person_lists_their_papers_and_offers_their_author_page(page):
    typed(page, "Yoshua Bengio")
    link = page.locator("a.author-suggestion")
    assert link.inner_text() == "Author: Yoshua Bengio →"
    authors = page.locator("article.hit .authors").all_inner_texts()
    assert authors and all("Yoshua Bengio" in line for line in authors)
    shot(page, "2-person")
    link.click()
    page.wait_for_url(re.compile(r"/author/"))
    assert "Yoshua Bengio" in page.locator("h1").inner_text()


def test_an_id_goes_to_its_paper_or_says_it_is_not_here(page):
    typed(page, TITLE_ID)
    page.wait_for_url(re.compile(rf"/paper/{TITLE_ID}"))
    typed(page, "1706.03762")
    assert page.locator("article.hit").count() == 0
    notice = page.locator("p.notice", has_text="1706.03762").inner_text()
    assert "no paper here has the arXiv id 1706.03762" in notice and "papersift fetch arxiv" in notice
    shot(page, "3-unknown-id")


def test_gibberish_gets_no_papers_and_a_clear_message(page):
    typed(page, "qwxzzplk")
    assert page.locator("article.hit").count() == 0
    assert page.locator(".summary .total").inner_text() == "0 papers"
    assert "No papers found." in page.locator("p.empty").inner_text()
    shot(page, "4-nothing")


def test_a_misspelling_is_corrected_with_a_link_to_the_words_as_typed(page):
    typed(page, "difusion modles")
    line = page.locator("p.did-you-mean")
    assert line.locator("strong").inner_text() == "diffusion models"
    assert page.locator("article.hit").count() > 0
    shot(page, "5-did-you-mean")
    line.locator("a.typed").click()
    page.wait_for_url(re.compile(r"literal=true"))
    assert page.locator("p.did-you-mean").count() == 0


def test_the_summary_agrees_with_the_facets(page):
    typed(page, "diffusion models")
    total = int(re.match(r"[\d,]+", page.locator(".summary .total").inner_text()).group(0).replace(",", ""))
    venues = page.locator("[data-facet=venue] a.facet-link .count").all_inner_texts()
    assert venues and sum(int(count.replace(",", "")) for count in venues) == total
    shot(page, "6-counts")
