"""Load while writing: readers, writers and `papersift index` at once against one real server.

A drill, not a micro-benchmark. It copies a data dir into scratch space, starts
`papersift serve --enable-writes` on a free loopback port, and for T seconds runs:
- `readers` clients sending a mix of the requests users make (the page, /api/search,
  /api/facets, /api/export), each with a real query string;
- `writers` clients POSTing batches of new papers, each paper carrying a unique word in its
  title so it can be found afterwards;
- a loop of `papersift index` processes on the same data dir (beside the POSTs' own updates).
Then every posted paper must be stored once and found by keyword search for its word.
The report has, per request kind, counts, errors and latency percentiles, the server's
peak RSS, and the end-state check. Loopback only; bounded in clients and seconds.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx
import numpy as np

from papersift.bench.load import MAX_CLIENTS, MAX_SECONDS

WRITE_TOKEN_BYTES = 24
# Each reader kind: the path and the parameters it adds to the query and mode.
READ_REQUESTS: dict[str, tuple[str, dict[str, str | int]]] = {
    "page": ("/", {}), "search": ("/api/search", {"size": 20}), "facets": ("/api/facets", {}),
    "export": ("/api/export", {"format": "bibtex"}),
}
READ_KINDS = tuple(READ_REQUESTS)


@dataclass
class KindStats:
    """Latencies (seconds) and error samples of one kind of request."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def row(self, kind: str) -> dict:
        millis = np.array(self.latencies) * 1000 if self.latencies else np.zeros(1)
        return {
            "kind": kind, "requests": len(self.latencies) + len(self.errors), "errors": len(self.errors),
            "p50_ms": round(float(np.percentile(millis, 50)), 1), "p99_ms": round(float(np.percentile(millis, 99)), 1),
            "max_ms": round(float(millis.max()), 1), "sample_errors": self.errors[:3],
        }


@dataclass
class DrillState:
    stats: dict[str, KindStats] = field(default_factory=lambda: {kind: KindStats() for kind in (*READ_KINDS, "write")})
    posted: dict[str, str] = field(default_factory=dict)  # paper id -> its unique title word
    index_runs: int = 0
    index_failures: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def papersift_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "papersift", *args]


def drill_paper(template: dict, writer: int, number: int, run: str) -> tuple[dict, str]:
    """A new paper from a real one: a fresh id and a title word no other paper has."""
    word = f"drill{run}w{writer}n{number}"
    record = {key: template.get(key) for key in ("authors", "abstract", "venue", "year", "keywords")}
    record.update(id=f"DRILL-{run}-{writer}-{number}", title=f"{template['title']} {word}", source="drill")
    return record, word


async def _timed(stats: KindStats, label: str, call) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = await call()
    except httpx.HTTPError as error:
        stats.errors.append(f"{label}: {type(error).__name__}: {error}"[:200])
        return None
    if response.status_code >= 400:
        stats.errors.append(f"{label}: HTTP {response.status_code}: {response.text[:120]}")
        return None
    stats.latencies.append(time.perf_counter() - started)
    return response


async def _reader(client: httpx.AsyncClient, queries: Sequence[str], offset: int, mode: str, deadline: float,
                  state: DrillState) -> None:
    step = offset
    while time.perf_counter() < deadline:
        query = queries[step % len(queries)]
        kind = READ_KINDS[step % len(READ_KINDS)]
        step += 1
        path, params = READ_REQUESTS[kind]
        await _timed(state.stats[kind], f"{kind} {query!r}",
                     partial(client.get, path, params={"q": query, "mode": mode, **params}))


async def _writer(client: httpx.AsyncClient, templates: Sequence[dict], writer: int, batch: int, run: str,
                  token: str, deadline: float, state: DrillState) -> None:
    number = 0
    while time.perf_counter() < deadline:
        records = []
        for _ in range(batch):
            record, word = drill_paper(templates[(writer * 7919 + number) % len(templates)], writer, number, run)
            records.append((record, word))
            number += 1
        response = await _timed(state.stats["write"], f"writer {writer}", partial(
            client.post, "/api/papers", json=[record for record, _ in records],
            headers={"Authorization": f"Bearer {token}"}))
        if response is not None:
            state.posted.update((record["id"], word) for record, word in records)


def _index_loop(data_dir: Path, deadline: float, state: DrillState) -> None:
    """`papersift index` again and again on the served data dir, as a cron job would."""
    while time.perf_counter() < deadline:
        done = subprocess.run(papersift_command("index", "--data-dir", str(data_dir)), capture_output=True, text=True,
                              check=False)
        state.index_runs += 1
        if done.returncode != 0:
            state.index_failures.append(done.stderr.strip()[-300:])


async def _verify(client: httpx.AsyncClient, state: DrillState) -> dict:
    """Every posted paper found by its word (keyword mode); ids of those missing."""
    missing = []
    for paper_id, word in state.posted.items():
        response = await client.get("/api/search", params={"q": word, "mode": "keyword", "size": 5})
        ids = [hit["paper"]["id"] for hit in response.json().get("hits", [])] if response.status_code == 200 else []
        if paper_id not in ids:
            missing.append(paper_id)
    return {"posted": len(state.posted), "searchable": len(state.posted) - len(missing), "missing_sample": missing[:10]}


async def _drill(base_url: str, data_dir: Path, queries: Sequence[str], templates: Sequence[dict], readers: int,
                 writers: int, batch: int, seconds: float, mode: str, token: str, with_index: bool) -> tuple:
    state = DrillState()
    run = format(int(time.time()), "x")
    limits = httpx.Limits(max_connections=readers + writers + 2, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60.0, trust_env=False) as client:
        started = time.perf_counter()
        deadline = started + seconds
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(max_workers=1) as indexer:
            index_done = loop.run_in_executor(indexer, _index_loop, data_dir, deadline, state) if with_index else None
            await asyncio.gather(
                *(_reader(client, queries, number, mode, deadline, state) for number in range(readers)),
                *(_writer(client, templates, number, batch, run, token, deadline, state) for number in range(writers)))
            if index_done is not None:
                await index_done
        elapsed = time.perf_counter() - started
        # A last plain `index`, as after any cron run, then the end-state check.
        await asyncio.to_thread(subprocess.run, papersift_command("index", "--data-dir", str(data_dir)),
                                capture_output=True, check=False)
        verified = await _verify(client, state)
    return state, elapsed, verified


def peak_rss_mb(pid: int) -> float:
    """VmHWM of a live process (Linux), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _wait_until_up(base_url: str, server: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode} before answering")
        try:
            if httpx.get(f"{base_url}/api/search", params={"q": "x"}, timeout=2.0, trust_env=False).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {timeout:.0f} s")


def run_drill(data_dir: Path, queries: Sequence[str], templates: Sequence[dict], readers: int = 20, writers: int = 5,
              batch: int = 20, seconds: float = 60.0, mode: str = "keyword", with_index: bool = True,
              scratch: Path | None = None) -> dict:
    """Copy data_dir to scratch, serve it with writes on, drill it, check it; the report dict."""
    if not 1 <= readers + writers <= MAX_CLIENTS or not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"readers + writers must be 1..{MAX_CLIENTS} and seconds 0..{MAX_SECONDS}")
    if not queries or not templates:
        raise ValueError("the drill needs queries and template papers")
    work = Path(tempfile.mkdtemp(prefix="papersift-drill-", dir=scratch))
    try:
        served = work / "data"
        shutil.copytree(data_dir, served, ignore=shutil.ignore_patterns("*.building", "embed.log"))
        port, token = free_port(), os.urandom(WRITE_TOKEN_BYTES).hex()
        base_url = f"http://127.0.0.1:{port}"
        server_log = (work / "server.log").open("wb")  # the access log: a pipe nobody reads would fill and block it
        server = subprocess.Popen(
            papersift_command("serve", "--data-dir", str(served), "--host", "127.0.0.1", "--port", str(port),
                              "--enable-writes", "--write-token", token),
            stdout=subprocess.DEVNULL, stderr=server_log)
        try:
            _wait_until_up(base_url, server)
            state, elapsed, verified = asyncio.run(_drill(base_url, served, queries, templates, readers, writers, batch,
                                                          seconds, mode, token, with_index))
            rss = peak_rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
            server_log.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = [state.stats[kind].row(kind) for kind in (*READ_KINDS, "write")]
    return {
        "readers": readers, "writers": writers, "batch": batch, "mode": mode, "seconds": round(elapsed, 1),
        "rows": rows, "errors": sum(row["errors"] for row in rows),
        "index_runs": state.index_runs, "index_failures": state.index_failures[:3],
        "server_peak_rss_mb": rss, **verified,
    }


def markdown(report: dict) -> str:
    lines = [
        (f"Load while writing: {report['readers']} readers + {report['writers']} writers × {report['seconds']} s "
         f"({report['mode']} mode), `papersift index` run {report['index_runs']} times beside them "
         f"({len(report['index_failures'])} failed); server peak RSS {report['server_peak_rss_mb']} MB."),
        "",
        "| request | count | errors | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {row['kind']} | {row['requests']} | {row['errors']} | {row['p50_ms']} | {row['p99_ms']} | "
              f"{row['max_ms']} |" for row in report["rows"]]
    lines += ["", f"Posted papers: {report['posted']}; searchable at the end: {report['searchable']}."]
    return "\n".join(lines) + "\n"

