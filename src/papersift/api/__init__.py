"""The HTTP API (FastAPI): `create_app(data_dir)` serves the JSON API and the page."""

from papersift.api.app import create_app

__all__ = ["create_app"]
