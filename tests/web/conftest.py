"""Page tests: the real service over a real indexed slice, served by uvicorn for the browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from served_papers import CHROMIUM, CHROMIUM_ARGS, serve_in_thread


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, driven by Playwright (the browser tier's tests)."""
    from playwright import sync_api  # the browser tier's dependency: core tests never import it

    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install chromium fonts-wqy-microhei (scripts/setup.sh)"
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def live_server(app):
    """The app on a free loopback port, in a thread of this process."""
    with serve_in_thread(app) as base_url:
        yield base_url
