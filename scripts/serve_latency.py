"""Hybrid latency through a running `papersift serve` and the server's RSS (docs/semantic.md,
"At 1M synthetic papers").

    python scripts/serve_latency.py DATA_DIR PORT

Starts `papersift serve` on DATA_DIR (nice -n 10), waits until it answers, sends bench
semantic's 150 queries once to warm it, then twice more one at a time (hybrid, 20 hits, the
API's /api/search), and reads VmRSS / RssAnon / RssFile of the server after start and after
the queries. Figures go to stdout and DATA_DIR.serve-latency.json.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

from papersift.bench.semantic import bench_queries


def server_rss_mb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS", "RssAnon", "RssFile")):
            name, value = line.split()[:2]
            fields[name.rstrip(":")] = int(value) // 1024
    return fields


def wait_until_ready(client: httpx.Client, server: subprocess.Popen, log: Path) -> None:
    """Poll a starting server until it answers a keyword search (exit if it died)."""
    while True:
        try:
            if client.get("/api/search", params={"q": "graph", "mode": "keyword", "size": 1}).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
        time.sleep(0.5)


def main(data_dir: str, port: int) -> dict:
    started = time.perf_counter()
    log = Path(f"{data_dir}.serve.log")
    server = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "papersift", "serve", "--data-dir", data_dir,
                               "--port", str(port)], env=dict(os.environ), stdout=log.open("w"), stderr=subprocess.STDOUT)
    out: dict = {"data_dir": data_dir}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:
            wait_until_ready(client, server, log)
            out.update(ready_s=round(time.perf_counter() - started, 1), rss_ready_mb=server_rss_mb(server.pid))
            queries = bench_queries()
            for _, query in queries:  # warm-up pass
                client.get("/api/search", params={"q": query, "mode": "hybrid", "size": 20})
            seconds: dict[str, list[float]] = {}
            for _ in range(2):
                for query_set, query in queries:
                    begun = time.perf_counter()
                    response = client.get("/api/search", params={"q": query, "mode": "hybrid", "size": 20})
                    if response.status_code != 200:
                        raise SystemExit(f"HTTP {response.status_code} for {query!r}: {response.text[:200]}")
                    for name in (query_set, "all"):
                        seconds.setdefault(name, []).append(time.perf_counter() - begun)
            out["notices"] = response.json().get("notices")
            out["hybrid_ms"] = {name: {"p50": round(float(np.percentile(values, 50)) * 1000, 1),
                                       "p99": round(float(np.percentile(values, 99)) * 1000, 1), "n": len(values)}
                                for name, values in seconds.items()}
            out["rss_after_mb"] = server_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)
    Path(f"{data_dir}.serve-latency.json").write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2])), indent=1))
