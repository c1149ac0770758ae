"""The HTTP API (FastAPI): `create_api_app(data_dir)` serves the JSON API; the whole server
with the page is `papersift.server.create_app`."""

from papersift.api.app import create_api_app

__all__ = ["create_api_app"]
