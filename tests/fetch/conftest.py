"""A local stand-in for the remote services: http.server on 127.0.0.1 (random port) in a thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# (path, query with one value per key) -> (status, headers, body)
Route = Callable[[str, dict[str, str]], tuple[int, dict[str, str], bytes]]


@dataclass
class FakeService:
    route: Route
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # served first, in order
    base_url: str = ""

    def fail_next(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.failures.append((status, headers or {}))


def page(body_file: Path, content_type: str) -> tuple[int, dict[str, str], bytes]:
    return 200, {"Content-Type": content_type}, body_file.read_bytes()


@pytest.fixture()
def fake_service():
    """Start a server for a route; `service.fail_next(503)` makes the next request fail."""
    servers: list[ThreadingHTTPServer] = []

    def start(route: Route) -> FakeService:
        service = FakeService(route)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {key: values[0] for key, values in parse_qs(url.query).items()}
                service.requests.append((url.path, query))
                if service.failures:
                    status, headers = service.failures.pop(0)
                    body = b'{"name": "RateLimitError", "message": "Too many requests"}'
                else:
                    status, headers, body = service.route(url.path, query)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        servers.append(server)
        service.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        return service

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def openreview_route(path: str, query: dict[str, str]):
    """OpenReview /notes for COLM 2024 in pages of 2 (the fixture files are the pages)."""
    if path != "/notes" or "limit" not in query:
        return 400, {}, b'{"name": "ValidationError"}'
    return page(FIXTURES / "openreview" / f"colm2024-offset{query.get('offset', '0')}.json", "application/json")


def arxiv_api_route(path: str, query: dict[str, str]):
    if path != "/api/query":
        return 404, {}, b""
    return page(FIXTURES / "arxiv" / f"query-start{query.get('start', '0')}.atom", "application/atom+xml")


def arxiv_oai_route(path: str, query: dict[str, str]):
    if path != "/oai" or query.get("verb") != "ListRecords":
        return 404, {}, b""
    if query.get("resumptionToken") == "6960524|1001":
        return page(FIXTURES / "arxiv" / "oai-page2.xml", "text/xml")
    if query.get("metadataPrefix") == "arXiv":
        return page(FIXTURES / "arxiv" / "oai-page1.xml", "text/xml")
    return page(FIXTURES / "arxiv" / "oai-badargument.xml", "text/xml")
