"""The load generator against a small loopback HTTP server: counts, errors, refusal of other hosts."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from papersift.bench.load import markdown_table, run_load


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        failing = "fail" in self.path
        body = b'{"error": "boom"}' if failing else b'{"hits": []}'
        self.send_response(500 if failing else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_counts_requests_and_errors(server, tmp_path):
    result = run_load(server, ["graph", "fail this one"], clients=4, seconds=1.0, label="toy")
    assert result.requests > 20
    assert 0 < result.errors < result.requests  # every other query fails
    assert result.qps > 0 and result.p50_ms <= result.p99_ms <= result.max_ms
    assert "| toy | 4 |" in markdown_table([result])


def test_only_loopback_targets():
    with pytest.raises(ValueError, match="only target this machine"):
        run_load("http://192.0.2.1:8000", ["x"], clients=1, seconds=1)
    with pytest.raises(ValueError, match="clients"):
        run_load("http://127.0.0.1:9", ["x"], clients=1000, seconds=1)
