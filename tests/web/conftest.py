"""Page tests: the real service over a real indexed slice, served by uvicorn for the browser."""

from __future__ import annotations

import pytest

from served_papers import serve_in_thread


@pytest.fixture(scope="session")
def live_server(app):
    """The app on a free loopback port, in a thread of this process."""
    with serve_in_thread(app) as base_url:
        yield base_url
