"""static/keys.js in a real browser: "/", j, k, o and Enter pressed as a person would; the
focus stays visible; dark mode follows the system setting (prefers-color-scheme)."""

from __future__ import annotations

import re

import pytest

from served_papers import CSP_WATCH

pytestmark = pytest.mark.browser


@pytest.fixture()
def tab(browser, live_server):
    context = browser.new_context(base_url=live_server, locale="en-US", viewport={"width": 1280, "height": 900})
    context.add_init_script(CSP_WATCH)
    page = context.new_page()
    yield page
    assert page.evaluate("window.__csp") == []  # keys.js is a file of /static: the CSP lets it run
    context.close()


def focused_hit(tab) -> int:
    """The 0-based number of the hit whose title link has the focus (-1: none)."""
    return tab.evaluate("""() => [...document.querySelectorAll('article.hit h2 a')].indexOf(document.activeElement)""")


def test_j_k_move_between_hits_and_o_opens_the_focused_one(tab):
    tab.goto("/?q=learning&mode=keyword&lang=en")
    titles = tab.locator("article.hit h2 a")
    assert titles.count() == 20
    tab.keyboard.press("j")
    assert focused_hit(tab) == 0
    tab.keyboard.press("j")
    tab.keyboard.press("j")
    assert focused_hit(tab) == 2
    assert tab.locator("article.hit.current").count() == 1
    assert tab.locator("article.hit").nth(2).evaluate("el => el.classList.contains('current')")
    outline = tab.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # the focus is visible (:focus-visible after a key)
    tab.keyboard.press("k")
    assert focused_hit(tab) == 1
    for _ in range(25):  # past the last hit it stays on the last
        tab.keyboard.press("j")
    assert focused_hit(tab) == 19
    expected = titles.nth(19).get_attribute("href")
    tab.keyboard.press("o")
    tab.wait_for_url(re.compile(r"/paper/"))
    assert tab.url.endswith(expected)


def test_enter_opens_the_focused_hit_and_slash_focuses_the_query(tab):
    tab.goto("/?q=kernel&mode=keyword&lang=en")
    tab.keyboard.press("j")
    tab.keyboard.press("j")
    expected = tab.locator("article.hit h2 a").nth(1).get_attribute("href")
    tab.keyboard.press("Enter")
    tab.wait_for_url(re.compile(r"/paper/"))
    assert tab.url.endswith(expected)
    tab.go_back()
    tab.wait_for_selector("article.hit")
    tab.keyboard.press("/")
    assert tab.evaluate("document.activeElement.id") == "q"
    tab.keyboard.type("jk")  # typed into the box: the keys are not moves while typing
    assert tab.input_value("#q") == "jk" and focused_hit(tab) == -1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_colours_follow_the_system_setting(browser, live_server, scheme):
    context = browser.new_context(base_url=live_server, color_scheme=scheme)
    page = context.new_page()
    page.goto("/?q=learning&lang=en")
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    text = page.evaluate("getComputedStyle(document.documentElement).color")
    context.close()
    luminance = sum(int(part) for part in re.findall(r"\d+", background)[:3])
    assert (luminance < 100) == (scheme == "dark") and background != text

