"""HTTP GET with a rate limit and retries with exponential backoff (httpx underneath)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from papersift import __version__

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = f"papersift/{__version__} (paper search engine; metadata harvester)"


class FetchError(RuntimeError):
    """A request that failed for good (after retries, or a status that retrying cannot fix)."""


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 5  # attempts after the first
    backoff: float = 2.0  # first wait in seconds; doubles each retry
    max_backoff: float = 120.0

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds before retry number `attempt` (1-based): Retry-After wins when the server sends one."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_backoff)
        return min(self.backoff * 2 ** (attempt - 1), self.max_backoff)


class HttpClient:
    """GETs against one base URL, at most one request per `min_interval` seconds.

    `sleep` and `clock` are injectable so tests run without real waiting.
    """

    def __init__(
        self,
        base_url: str,
        min_interval: float = 3.0,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        on_wait: Callable[[str], None] | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.min_interval = min_interval
        self.retry = retry
        self.sleep = sleep
        self.clock = clock
        self.on_wait = on_wait
        self.requests_made = 0
        self._last_request: float | None = None
        self._client = httpx.Client(timeout=timeout, headers={"User-Agent": USER_AGENT}, follow_redirects=True)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def get(self, path: str, params: dict) -> bytes:
        url = f"{self.base_url}{path}"
        for attempt in range(self.retry.retries + 1):
            self._respect_rate_limit()
            body, problem, retry_after = self._attempt(url, params)
            if body is not None:
                return body
            if attempt == self.retry.retries:
                raise FetchError(f"GET {url} failed after {attempt + 1} attempts: {problem}")
            delay = self.retry.wait(attempt + 1, retry_after)
            if self.on_wait:
                self.on_wait(f"{problem}; retry {attempt + 1}/{self.retry.retries} in {delay:.1f} s")
            self.sleep(delay)
        raise AssertionError("unreachable")

    def _attempt(self, url: str, params: dict) -> tuple[bytes | None, str | None, float | None]:
        """(body, None, None) on success, else (None, problem, Retry-After seconds)."""
        self.requests_made += 1
        self._last_request = self.clock()
        try:
            response = self._client.get(url, params=params)
        except httpx.TransportError as exc:
            return None, f"{type(exc).__name__}: {exc}", None
        if response.status_code in RETRY_STATUSES:
            return None, f"HTTP {response.status_code}", _retry_after(response)
        if response.status_code >= 400:
            raise FetchError(f"GET {response.url} -> HTTP {response.status_code}: {response.text[:300]}")
        return response.content, None, None

    def _respect_rate_limit(self) -> None:
        if self._last_request is None:
            return
        remaining = self.min_interval - (self.clock() - self._last_request)
        if remaining > 0:
            self.sleep(remaining)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "").strip()
    return float(value) if value.replace(".", "", 1).isdigit() else None
