"""Load benchmark: N concurrent clients for T seconds against a running `papersift serve`.

An asyncio loop of httpx clients, each sending the shared query strings in turn to
/api/search and timing every answer. Loopback only (the target must be 127.0.0.1 or
localhost), bounded in clients and seconds; it stops by itself. The report has the
request count, errors, QPS and latency percentiles, per backend side by side.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx
import numpy as np

MAX_CLIENTS = 200
MAX_SECONDS = 600
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True, slots=True)
class LoadResult:
    label: str
    clients: int
    seconds: float
    requests: int
    errors: int
    qps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    sample_errors: list[str]


def check_target(base_url: str) -> None:
    host = urlparse(base_url).hostname
    if host not in LOOPBACK_HOSTS:
        raise ValueError(f"load tests only target this machine (127.0.0.1/localhost), not {host!r}")


async def _client_loop(client: httpx.AsyncClient, queries: Sequence[str], offset: int, mode: str, deadline: float,
                       latencies: list[float], errors: list[str]) -> None:
    step = offset
    while time.perf_counter() < deadline:
        query = queries[step % len(queries)]
        step += 1
        started = time.perf_counter()
        try:
            response = await client.get("/api/search", params={"q": query, "mode": mode, "size": 10})
            if response.status_code != 200:
                errors.append(f"HTTP {response.status_code} for {query!r}: {response.text[:120]}")
            else:
                latencies.append(time.perf_counter() - started)
        except httpx.HTTPError as error:
            errors.append(f"{type(error).__name__} for {query!r}: {error}"[:200])


async def _run(base_url: str, queries: Sequence[str], clients: int, seconds: float, mode: str) -> tuple:
    latencies: list[float] = []
    errors: list[str] = []
    # Idle connections are dropped before the server's 5 s keep-alive ends, so a request is
    # never sent on a connection the server is closing (that race is not a server error).
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30.0, trust_env=False) as client:
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(_client_loop(client, queries, index, mode, deadline, latencies, errors)
                               for index in range(clients)))
        elapsed = time.perf_counter() - started
    return latencies, errors, elapsed


def run_load(base_url: str, queries: Sequence[str], clients: int = 50, seconds: float = 60.0,
             mode: str = "keyword", label: str = "") -> LoadResult:
    check_target(base_url)
    if not 1 <= clients <= MAX_CLIENTS or not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"clients must be 1..{MAX_CLIENTS} and seconds 0..{MAX_SECONDS}")
    if not queries:
        raise ValueError("no queries to send")
    # The clients' event loop runs in its own thread, so a caller that already runs a loop in
    # this one (a notebook, Playwright's sync API in the same test session) can still call this.
    with ThreadPoolExecutor(max_workers=1) as runner:
        latencies, errors, elapsed = runner.submit(
            lambda: asyncio.run(_run(base_url, queries, clients, seconds, mode))).result()
    millis = np.array(latencies) * 1000 if latencies else np.zeros(1)
    return LoadResult(
        label=label or base_url, clients=clients, seconds=round(elapsed, 2), requests=len(latencies) + len(errors),
        errors=len(errors), qps=round(len(latencies) / elapsed, 1),
        p50_ms=round(float(np.percentile(millis, 50)), 1), p90_ms=round(float(np.percentile(millis, 90)), 1),
        p99_ms=round(float(np.percentile(millis, 99)), 1), max_ms=round(float(millis.max()), 1),
        sample_errors=errors[:5],
    )


def markdown_table(results: Sequence[LoadResult]) -> str:
    lines = ["| backend | clients | seconds | requests | errors | QPS | p50 ms | p90 ms | p99 ms | max ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r.label} | {r.clients} | {r.seconds} | {r.requests} | {r.errors} | {r.qps} | "
                     f"{r.p50_ms} | {r.p90_ms} | {r.p99_ms} | {r.max_ms} |")
    return "\n".join(lines) + "\n"
