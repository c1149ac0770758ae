"""Hostile bodies and parameters at every route: never a 5xx, never a traceback or a
filesystem path in the answer, bounded time per request.

The same requests run in process (TestClient) and against a real `uvicorn` subprocess on
127.0.0.1, sent over a raw socket (so invalid UTF-8 and NUL bytes reach the server as is),
while the server's RSS is sampled. The figures (worst request time, peak RSS) are written
to artifacts/hostile-requests.json; the asserts only catch order-of-magnitude regressions.
The OpenAPI contract test (test_openapi_schema.py) adds generated requests with the same
no-leak check.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import psutil
import pytest
from fastapi.testclient import TestClient

from papersift.server import create_app
from served_papers import HOSTILE_ID, TEST_HOSTS, build_served_data_dir, wait_until_listening

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
MB = 1024 * 1024
REQUEST_SECONDS_BOUND = 10.0  # generous: every one of these takes milliseconds to ~1 s
LEAK_MARKERS = ("Traceback", "site-packages", "File \"/", "/work/", "/tmp/", "/home/", "/usr/lib")

ROUTES = ["/", "/api/search", "/api/facets", "/api/export", f"/api/papers/{HOSTILE_ID}",
          f"/api/papers/{HOSTILE_ID}/similar", f"/paper/{HOSTILE_ID}", f"/paper/{HOSTILE_ID}/similar",
          "/topics", "/topics/map", "/api/topics/map", "/api/topics/trends", "/topics/trends.svg"]
HOSTILE_QUERIES = {
    "nul": "q=%00abc%00",
    "invalid_utf8": "q=%FF%FE%FD",
    "negative_page": "page=-1&size=-5",
    "huge_page": "page=99999999999999999999999999&size=1000000000",
    "float_page": "page=1e309&year_from=NaN",
    "repeated_params": "&".join(f"venue=v{index}" for index in range(60)),
    "many_unknown_params": "&".join(f"p{index}=1" for index in range(1500)),
    "ten_thousand_params": "&".join(f"p{index}=1" for index in range(10_000)),
    "giant_query": "q=" + "a" * (1 * MB),
    "bad_lang": "lang=../../etc/passwd&format=%0d%0a",
    "deep_brackets": "q=" + "(" * 5000,
}
HOSTILE_PATHS = [
    "/api/papers/..%2F..%2F..%2Fetc%2Fpasswd", "/paper/..%2F..%2Fetc%2Fpasswd", "/static/../../etc/passwd",
    "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/static/..%2F..%2Fapi%2Fapp.py", "/api/papers/%00",
    "/paper/%FF%FE", "/api/papers/" + "x" * 20_000, "/api/papers/a%2Fb%2Fc/similar/similar",
    "/api/export?ids=" + "%2C" * 5000, "/api/export?ids=..%2F..%2Fetc%2Fpasswd&format=json",
    "//api//search", "/api/search/", "/%2e%2e/%2e%2e/etc/passwd",
]
# (description, content-type, body) for POST /api/papers
HOSTILE_BODIES = [
    ("deep_json", "application/json", b"[" * 100_000 + b"]" * 100_000),
    ("deep_object", "application/json", b'[{"a":' * 20_000 + b"1" + b"}]" * 20_000),
    ("invalid_utf8", "application/json", b'[{"id": "\xff\xfe", "title": "x"}]'),
    ("nul_bytes", "application/json", b'[{"id": "a\\u0000b", "title": "\\u0000"}]'),
    ("not_json", "text/plain", b"\x00\x01\x02" * 1000),
    ("wide_record", "application/json", orjson.dumps([{f"k{index}": index for index in range(20_000)}])),
    ("many_records", "application/json", orjson.dumps([{"title": "t"}] * 5000)),
]


def hostile_targets() -> list[str]:
    targets = [f"{route}?{query}" for route in ROUTES for query in HOSTILE_QUERIES.values()]
    return targets + HOSTILE_PATHS


def assert_safe(status: int, body: bytes, seconds: float, what: str, data_dir: Path) -> None:
    text = body.decode("utf-8", "replace")
    assert status < 500, f"{what}: {status} {text[:300]}"
    assert not any(marker in text for marker in LEAK_MARKERS) and str(data_dir) not in text, f"{what}: {text[:300]}"
    assert seconds < REQUEST_SECONDS_BOUND, f"{what} took {seconds:.1f} s"


def asgi_get(app, target: bytes) -> tuple[int, bytes]:
    """GET straight through the ASGI app, the target as raw bytes (httpx refuses URLs over
    64 KB). The path is decoded as uvicorn does: percent-escapes as UTF-8, bad bytes replaced."""
    from urllib.parse import unquote

    raw_path, _, query = target.partition(b"?")
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": unquote(raw_path.decode("latin-1")), "raw_path": raw_path,
             "query_string": query, "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
             "headers": [(b"host", b"localhost"), (b"accept", b"text/html")]}
    asyncio.run(app(scope, receive, send))
    status = next(message["status"] for message in sent if message["type"] == "http.response.start")
    return status, b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")


@pytest.mark.parametrize("target", hostile_targets(), ids=lambda target: target[:60])
def test_hostile_parameters_in_process(app, served_data_dir, target):
    started = time.perf_counter()
    status, body = asgi_get(app, target.encode("latin-1"))
    assert_safe(status, body, time.perf_counter() - started, target, served_data_dir)


@pytest.mark.parametrize(("name", "content_type", "body"), HOSTILE_BODIES, ids=[case[0] for case in HOSTILE_BODIES])
@pytest.mark.parametrize("writes", ["read_only", "writable"])
def test_hostile_bodies_in_process(request, served_data_dir, name, content_type, body, writes):
    if writes == "read_only":
        client = request.getfixturevalue("client")
        data_dir = served_data_dir
    else:
        data_dir = build_served_data_dir(request.getfixturevalue("tmp_path") / "data",
                                         request.getfixturevalue("sample_records")[:20])
        client = TestClient(create_app(data_dir, enable_writes=True, write_token="t" * 32, allowed_hosts=TEST_HOSTS),
                            raise_server_exceptions=False)
    started = time.perf_counter()
    response = client.post("/api/papers", content=body,
                           headers={"content-type": content_type, "authorization": "Bearer " + "t" * 32})
    assert_safe(response.status_code, response.content, time.perf_counter() - started, name, data_dir)
    assert response.status_code == (403 if writes == "read_only" else 422), response.text[:300]


# --- the same against a real server -------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def raw_request(port: int, head: bytes, body_chunks=(), timeout: float = 30.0) -> tuple[int, bytes, int]:
    """Send a request as raw bytes; stop sending the body once the server answers.
    (status, response bytes, body bytes sent)."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        try:
            connection.sendall(head)  # a server may answer a too-long head before it has all of it
            for chunk in body_chunks:
                if select.select([connection], [], [], 0)[0]:
                    break  # the server has answered (and stopped reading)
                connection.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    status_line = answer.split(b"\r\n", 1)[0].split(b" ")
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
    return status, answer.split(b"\r\n\r\n", 1)[-1], sent


class RssSampler:
    """Peak resident memory of a process, sampled every 20 ms in a thread."""

    def __init__(self, pid: int):
        self.process, self.peak, self.running = psutil.Process(pid), 0, True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            try:
                self.peak = max(self.peak, self.process.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.02)  # a sampling period, not synchronisation

    def stop(self) -> int:
        self.running = False
        self.thread.join()
        return self.peak


@pytest.fixture()
def real_server(served_data_dir):
    port = free_port()
    launcher = ("import sys, uvicorn; from papersift.server import create_app; "
                "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                                        os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-c", launcher, str(served_data_dir), str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_until_listening(server, port)
    yield server, port
    server.terminate()
    server.wait(timeout=30)


def get_head(target: str) -> bytes:
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode("latin-1")


def post_head(content_type: str, length: int | None, token: str = "wrong-token-wrong-token") -> bytes:
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return (f"POST /api/papers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: {content_type}\r\n"
            f"Authorization: Bearer {token}\r\n{framing}\r\n\r\n").encode()


@pytest.mark.drill
def test_hostile_requests_against_a_real_uvicorn(real_server, served_data_dir):
    server, port = real_server
    baseline = psutil.Process(server.pid).memory_info().rss
    sampler = RssSampler(server.pid)
    timings: dict[str, float] = {}

    def measured(name: str, head: bytes, body_chunks=()) -> tuple[int, bytes, int]:
        started = time.perf_counter()
        status, body, sent = raw_request(port, head, body_chunks)
        timings[name] = time.perf_counter() - started
        assert_safe(status, body, timings[name], name, served_data_dir)
        assert status != 0, f"{name}: no HTTP answer"
        return status, body, sent

    for target in hostile_targets():
        measured(target[:80], get_head(target))
    for raw in (b"/api/search?q=\xff\xfe", b"/api/search?q=a\x00b", b"/paper/\xff"):
        measured(repr(raw), b"GET " + raw + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    for name, content_type, body in HOSTILE_BODIES:
        measured(f"POST {name}", post_head(content_type, len(body)), [body])
    # A 300 MB body with a wrong token, declared and streamed: refused without being read.
    chunk = b" " * MB
    status, _, sent = measured("POST 300 MB declared", post_head("application/json", 300 * MB), (chunk for _ in range(300)))
    assert status in (403, 413) and sent < 100 * MB
    status, _, sent = measured("POST 300 MB chunked", post_head("application/json", None),
                               (b"100000\r\n" + chunk + b"\r\n" for _ in range(300)))
    assert status == 403 and sent < 100 * MB
    peak = sampler.stop()
    assert server.poll() is None, "the server died"
    worst = max(timings, key=timings.get)
    figures = {"requests": len(timings), "worst_request": worst, "worst_seconds": round(timings[worst], 3),
               "median_seconds": round(sorted(timings.values())[len(timings) // 2], 4),
               "post_300mb_seconds": {name: round(timings[name], 3) for name in timings if "300 MB" in name},
               "rss_baseline_mb": round(baseline / MB, 1), "rss_peak_mb": round(peak / MB, 1)}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "hostile-requests.json").write_text(json.dumps(figures, indent=2))
    print(figures)
    assert peak - baseline < 400 * MB, figures  # a 300 MB body once added 815 MB
