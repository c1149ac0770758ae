"""Hybrid known-item dev pages through /api/search on a fresh `papersift serve` (docs/semantic.md,
"Where a hybrid page's time went").

    python scripts/hybrid_api_latency.py SRC DATA_DIR PORT LANG

SRC is the source tree the server runs (PYTHONPATH, e.g. /work/main/src to compare branches),
LANG en or zh. Pass 1: each query once with no query vector remembered (a fresh server); pass 2:
the same queries again. Prints p50 / p95 / mean ms of each pass, the server's CPU ms a page
(its process time over the pass: what other jobs on a shared machine barely move) and the load
average.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson
import psutil
from serve_latency import wait_until_ready  # scripts/, this script's folder

from papersift.config import shared_data_dir


def main(src: str, data_dir: str, port: int, lang: str) -> None:
    lines = (shared_data_dir() / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines()
    queries = [record["text"] for record in map(orjson.loads, lines) if record["lang"] == lang]
    log = Path(tempfile.gettempdir()) / f"papersift-hybrid-latency-{port}.log"  # not beside the data dir
    server = subprocess.Popen([sys.executable, "-m", "papersift", "serve", "--data-dir", data_dir, "--port", str(port)],
                              env=dict(os.environ, PYTHONPATH=src), stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            wait_until_ready(client, server, log)
            # and warmed up (/healthz is 503 until then): a query sent before measures the warm-up,
            # e.g. the phrase encoder loading on the first Chinese query
            while client.get("/healthz").status_code != 200:
                time.sleep(0.5)
            client.get("/api/search", params={"q": "warm up the encoder on graph networks", "mode": "hybrid", "size": 20})
            process = psutil.Process(server.pid)
            for label in ("pass 1", "pass 2"):
                took = []
                cpu_before = sum(process.cpu_times()[:2])
                for query in queries:
                    started = time.perf_counter()
                    response = client.get("/api/search", params={"q": query, "mode": "hybrid", "size": 20})
                    took.append(time.perf_counter() - started)
                    response.raise_for_status()
                took.sort()
                cpu_ms = (sum(process.cpu_times()[:2]) - cpu_before) / len(took) * 1000
                print(f"{src} {lang} {label}: p50 {took[len(took) // 2] * 1000:.1f} ms, "
                      f"p95 {took[round(0.95 * (len(took) - 1))] * 1000:.1f} ms, mean {statistics.fmean(took) * 1000:.1f} ms, "
                      f"server CPU {cpu_ms:.1f} ms a page, load {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
