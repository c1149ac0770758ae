"""Server-side latency of the search page and /api/search on a data dir.

Each request goes through the whole app in-process (routing, validation, the search
service, rendering); the time reported is the app's own `Server-Timing`, so the client's
overhead is not counted. Queries are real academic-search strings (s2cs_queries).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlencode

import orjson
from fastapi.testclient import TestClient

from papersift.config import shared_data_dir
from papersift.server import create_app
from papersift.store import Store


@dataclass
class LatencySummary:
    target: str
    requests: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float


def default_queries() -> list[str]:
    path = shared_data_dir() / "s2cs_queries" / "s2_query.jsonl"
    return [orjson.loads(line)["query"] for line in path.read_bytes().splitlines() if line.strip()]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summarize(target: str, durations_ms: list[float]) -> LatencySummary:
    return LatencySummary(
        target=target, requests=len(durations_ms), p50_ms=round(statistics.median(durations_ms), 2),
        p95_ms=round(percentile(durations_ms, 0.95), 2), p99_ms=round(percentile(durations_ms, 0.99), 2),
        mean_ms=round(statistics.fmean(durations_ms), 2), max_ms=round(max(durations_ms), 2),
    )


def server_ms(response) -> float:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url} answered {response.status_code}: {response.text[:200]}")
    return float(response.headers["server-timing"].split("dur=")[1])


def run_web_bench(data_dir: Path, queries: list[str], mode: str = "keyword", rounds: int = 3,
                  lang: str = "zh", progress=None) -> dict:
    """Warm up once, then time `rounds` passes over the queries for the page and the API."""
    app = create_app(data_dir)
    targets = {"page /": "/?", "api /api/search": "/api/search?"}
    timings: dict[str, list[float]] = {name: [] for name in targets}
    with TestClient(app, base_url="http://127.0.0.1") as client:  # a loopback Host, as a local browser sends
        for query in queries:  # warm-up: caches, mmaps, template compilation
            for prefix in targets.values():
                client.get(prefix + urlencode({"q": query, "mode": mode, "lang": lang}))
        started = time.perf_counter()
        for _ in range(rounds):
            for query in queries:
                for name, prefix in targets.items():
                    timings[name].append(server_ms(client.get(prefix + urlencode({"q": query, "mode": mode, "lang": lang}))))
                if progress:
                    progress(1)
        wall_s = time.perf_counter() - started
    return {
        "data_dir": str(data_dir),
        "papers": Store(data_dir, readonly=True).count(),
        "mode": mode,
        "queries": len(queries),
        "rounds": rounds,
        "wall_s": round(wall_s, 2),
        "results": [asdict(summarize(name, values)) for name, values in timings.items()],
    }


def markdown_report(report: dict) -> str:
    lines = [
        f"# papersift bench web — {report['papers']:,} papers, mode {report['mode']}",
        "",
        f"{report['queries']} real queries × {report['rounds']} rounds; server-side time (Server-Timing), 20 hits a page with facets.",
        "",
        "| target | requests | p50 ms | p95 ms | p99 ms | mean ms | max ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["results"]:
        lines.append(f"| {row['target']} | {row['requests']} | {row['p50_ms']} | {row['p95_ms']} | {row['p99_ms']} "
                     f"| {row['mean_ms']} | {row['max_ms']} |")
    return "\n".join(lines) + "\n"
