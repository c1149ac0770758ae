"""The load generator against a small loopback HTTP server: counts, errors, refusal of other hosts."""

from __future__ import annotations

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from papersift.bench.load import markdown_table, run_load


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    answered: Counter  # status code -> requests answered with it (set per server)

    def do_GET(self):
        failing = "fail" in self.path
        self.answered[500 if failing else 200] += 1
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
    """(base URL, the count of what it answered by status)."""
    answered: Counter = Counter()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("CountingHandler", (Handler,), {"answered": answered}))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", answered
    httpd.shutdown()


def test_counts_requests_and_errors(server, tmp_path):
    # Counted against what the server answered, not against a throughput this machine may not
    # reach: 4 clients starting at offsets 0..3 of the two queries each send both kinds.
    url, answered = server
    result = run_load(url, ["graph", "fail this one"], clients=4, seconds=1.0, label="toy")
    assert answered[200] >= 2 and answered[500] >= 2
    assert (result.requests, result.errors) == (answered[200] + answered[500], answered[500])
    assert result.qps == pytest.approx(answered[200] / result.seconds, rel=0.01, abs=0.1)
    assert result.p50_ms <= result.p99_ms <= result.max_ms
    assert "| toy | 4 |" in markdown_table([result])


def test_only_loopback_targets():
    with pytest.raises(ValueError, match="only target this machine"):
        run_load("http://192.0.2.1:8000", ["x"], clients=1, seconds=1)
    with pytest.raises(ValueError, match="clients"):
        run_load("http://127.0.0.1:9", ["x"], clients=1000, seconds=1)
