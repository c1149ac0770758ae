"""The whole server for one data dir: the JSON API (api/) with the page (web/) mounted on it.

It stands above both so that the page can build on the API's request parsing while the API
knows nothing of the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI

from papersift import extras
from papersift.api.app import create_api_app


def create_app(data_dir: str | Path, *, with_web: bool = True, **options: Any) -> FastAPI:
    """The API (`create_api_app`'s options) and, unless with_web is False, the page; the topic
    map page only with the topics extra, like the topics API."""
    app = create_api_app(data_dir, **options)
    if with_web:
        from papersift.web import topics_pages
        from papersift.web.routes import install_web

        install_web(app)
        if extras.available("topics"):
            topics_pages.install(app)
    return app
