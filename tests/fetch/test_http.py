"""HttpClient against a local server: retries with exponential backoff, Retry-After, rate limit."""

from __future__ import annotations

import socket

import pytest
from tests.fetch.conftest import openreview_route

from papersift.fetch.http import FetchError, HttpClient, RetryPolicy


class FakeTime:
    """A clock that only moves when the client sleeps: waits are recorded, not spent."""

    def __init__(self):
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def _client(base_url, fake_time, **options) -> HttpClient:
    return HttpClient(base_url, sleep=fake_time.sleep, clock=fake_time.clock, **options)


def test_retries_429_and_503_with_doubling_waits(fake_service):
    service = fake_service(openreview_route)
    service.fail_next(429)
    service.fail_next(503)
    service.fail_next(503)
    fake_time = FakeTime()
    with _client(service.base_url, fake_time, min_interval=0, retry=RetryPolicy(retries=5, backoff=0.5)) as client:
        body = client.get("/notes", {"content.venueid": "colmweb.org/COLM/2024/Conference", "offset": 0, "limit": 2})
    assert b'"count": 5' in body
    assert fake_time.sleeps == [0.5, 1.0, 2.0]
    assert len(service.requests) == 4 and client.requests_made == 4


def test_retry_after_header_sets_the_wait(fake_service):
    service = fake_service(openreview_route)
    service.fail_next(429, {"Retry-After": "7"})
    fake_time = FakeTime()
    with _client(service.base_url, fake_time, min_interval=0, retry=RetryPolicy(backoff=0.5)) as client:
        client.get("/notes", {"offset": 0, "limit": 2})
    assert fake_time.sleeps == [7.0]


def test_gives_up_after_the_last_retry_naming_the_url(fake_service):
    service = fake_service(openreview_route)
    for _ in range(3):
        service.fail_next(503)
    fake_time = FakeTime()
    with (_client(service.base_url, fake_time, min_interval=0, retry=RetryPolicy(retries=2, backoff=0.01)) as client,
          pytest.raises(FetchError, match=r"GET http://127\.0\.0\.1:\d+/notes failed after 3 attempts: HTTP 503")):
        client.get("/notes", {"offset": 0, "limit": 2})
    assert len(service.requests) == 3


def test_client_errors_are_not_retried(fake_service):
    service = fake_service(openreview_route)
    with _client(service.base_url, FakeTime(), min_interval=0) as client, pytest.raises(FetchError, match="HTTP 400"):
        client.get("/notes", {"offset": 0})  # no limit: the fake API answers 400
    assert len(service.requests) == 1


def test_network_errors_are_retried():
    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fake_time = FakeTime()
    with (_client(f"http://127.0.0.1:{port}", fake_time, min_interval=0, retry=RetryPolicy(retries=2, backoff=0.01)) as client,
          pytest.raises(FetchError, match="failed after 3 attempts: ConnectError")):
        client.get("/notes", {})
    assert fake_time.sleeps == [0.01, 0.02]


def test_requests_are_spaced_by_the_rate_limit(fake_service):
    service = fake_service(openreview_route)
    fake_time = FakeTime()
    with _client(service.base_url, fake_time, min_interval=3.0) as client:
        for offset in (0, 2, 4):
            client.get("/notes", {"offset": offset, "limit": 2})
            fake_time.now += 0.5  # the caller spends half a second on each page
    assert fake_time.sleeps == [2.5, 2.5]


def test_backoff_is_capped():
    policy = RetryPolicy(retries=10, backoff=2.0, max_backoff=30.0)
    assert [policy.wait(attempt, None) for attempt in range(1, 7)] == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert policy.wait(1, 500.0) == 30.0
