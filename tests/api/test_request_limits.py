"""What one request may make the server read: refused writes read no body, bodies are
capped (413) and timed (408), query strings capped (414).

The app is called as ASGI with a body that counts how much of it was pulled, so "never
read" is measured, not inferred from timing.
"""

from __future__ import annotations

import asyncio

import orjson
import pytest

from papersift.api.limits import MAX_BODY_BYTES
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir

TOKEN = "a-write-token-of-32-characters!!"
CHUNK = 1024 * 1024


class CountingBody:
    """An ASGI receive() that hands out `total` bytes in 1 MB chunks, counting what was pulled."""

    def __init__(self, total: int, stall_after: int | None = None):
        self.total, self.stall_after, self.pulled, self.calls = total, stall_after, 0, 0

    async def __call__(self):
        self.calls += 1
        if self.stall_after is not None and self.pulled >= self.stall_after:
            await asyncio.Event().wait()  # the client stops sending
        if self.pulled >= self.total:
            return {"type": "http.disconnect"}
        size = min(CHUNK, self.total - self.pulled)
        self.pulled += size
        return {"type": "http.request", "body": b"[" + b" " * (size - 1), "more_body": self.pulled < self.total}


def call(app, method: str, path: str, receive, headers: dict[str, str], query: bytes = b"") -> tuple[int, dict]:
    """Run one request through the ASGI app; (status, JSON body)."""
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"host", b"localhost"), *[(name.lower().encode(), value.encode()) for name, value in headers.items()]],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
    }
    asyncio.run(app(scope, receive, send))
    status = next(message["status"] for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return status, orjson.loads(body)


@pytest.fixture(scope="module")
def writable_dir(sample_records, tmp_path_factory):
    return build_served_data_dir(tmp_path_factory.mktemp("writable"), sample_records[:20])


@pytest.fixture(scope="module")
def writable_app(writable_dir):
    return create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS,
                      max_body_bytes=4 * CHUNK, body_timeout_s=0.5)


HUGE = 300 * CHUNK


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token-wrong-token!!", f"Basic {TOKEN}"])
def test_a_wrong_token_is_refused_before_a_byte_of_the_body_is_read(writable_app, authorization):
    body = CountingBody(HUGE)
    headers = {"authorization": authorization} if authorization else {}
    status, answer = call(writable_app, "POST", "/api/papers", body, {**headers, "transfer-encoding": "chunked"})
    assert (status, answer["error"]) == (401, "unauthorized")
    assert body.pulled == 0


def test_a_read_only_server_refuses_any_write_without_reading_it(app):
    body = CountingBody(HUGE)
    status, answer = call(app, "POST", "/api/papers", body, {"authorization": f"Bearer {TOKEN}",
                                                               "content-type": "application/json"})
    assert (status, answer["error"]) == (403, "writes_disabled")
    assert body.pulled == 0


def test_a_declared_body_over_the_cap_is_refused_unread(writable_app):
    body = CountingBody(HUGE)
    status, answer = call(writable_app, "POST", "/api/papers", body,
                          {"authorization": f"Bearer {TOKEN}", "content-length": str(HUGE)})
    assert (status, answer["error"]) == (413, "too_large")
    assert body.pulled == 0


def test_a_streamed_body_over_the_cap_stops_being_read_at_the_cap(writable_app, writable_dir):
    before = Store(writable_dir, readonly=True).count()
    body = CountingBody(HUGE)
    status, answer = call(writable_app, "POST", "/api/papers", body,
                          {"authorization": f"Bearer {TOKEN}", "transfer-encoding": "chunked"})
    assert (status, answer["error"]) == (413, "too_large")
    assert body.pulled <= 5 * CHUNK  # the cap (4 MB) plus the chunk that crossed it
    assert Store(writable_dir, readonly=True).count() == before


def test_a_body_that_stalls_gets_408(writable_app):
    body = CountingBody(2 * CHUNK, stall_after=CHUNK)
    status, answer = call(writable_app, "POST", "/api/papers", body,
                          {"authorization": f"Bearer {TOKEN}", "content-length": str(2 * CHUNK)})
    assert (status, answer["error"]) == (408, "body_timeout")
    assert "0.5 s" in answer["message"]


def test_a_giant_query_string_gets_414(client):
    response = client.get("/api/search?" + "q=" + "a" * 20_000)
    assert response.status_code == 414 and response.json()["error"] == "uri_too_long"


def test_the_default_body_cap_fits_a_full_write(sample_records):
    # MAX_WRITE_RECORDS (1,000) real records must fit under the default cap, with room to spare.
    thousand = orjson.dumps((sample_records * 2)[:1000])
    assert len(thousand) * 3 < MAX_BODY_BYTES


@pytest.mark.parametrize(("body", "problem"), [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe[]", "not valid JSON"),
    (b'{"id": "x"}', "JSON array"),
    (b"[1, 2]", "record 0: not a JSON object"),
    (b"[" * 5000 + b"]" * 5000, "not valid JSON"),
    (orjson.dumps([{}] * 1001), "at most 1000 records"),
])
def test_a_bad_body_gets_422_that_says_why(writable_app, body, problem):
    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    status, answer = call(writable_app, "POST", "/api/papers", receive, {"authorization": f"Bearer {TOKEN}"})
    assert status == 422 and problem in answer["message"]
