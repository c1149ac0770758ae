"""Cost probe for issue 29 items 2 and 3 against a real `papersift serve` (docs/reliability.md):
five long hybrid queries at once beside a stream of keyword requests (p50/p99 of each), and
library imports through /api/library/import (time, the server's peak and final RSS, refusals).

    python scripts/probe_costs.py DATA_DIR [--src SRC] [--port 8104] [--rounds 3] [--imports [--repeat N]] [--no-queries]

--src runs another checkout's code (e.g. ../main/src) for a before/after comparison.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import psutil

TOKEN = "probe-costs-write-token-0123456789"
BASE = ("弱监督学习在图像分类中的应用与扩散模型生成对抗网络的比较研究，以及强化学习中的策略梯度方法和图神经网络的表示能力分析。"
        "自监督对比学习与知识蒸馏在小样本场景下的泛化误差界，")


def long_query(number: int) -> str:
    return (f"{number} " + BASE * 20)[:990]


def start(data_dir: str, src: str | None, port: int) -> subprocess.Popen:
    path = f"import sys; sys.path.insert(0, {src!r}); " if src else ""
    code = path + "from papersift.cli import main; sys.argv[0] = 'papersift'; main()" if src else \
        "import sys; from papersift.cli import main; sys.argv[0] = 'papersift'; main()"
    server = subprocess.Popen([sys.executable, "-c", code, "serve", "--data-dir", data_dir, "--port", str(port),
                               "--enable-writes", "--write-token", TOKEN], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        assert server.poll() is None and time.monotonic() < deadline, "server did not start"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def queries(client: httpx.Client, rounds: int) -> None:
    client.get("/api/search", params={"q": long_query(999), "mode": "hybrid"})  # load the models
    client.get("/api/search", params={"q": "diffusion models", "mode": "keyword"})
    long_ms: list[float] = []
    keyword_ms: list[float] = []
    notices: set[str] = set()
    for round_number in range(rounds):
        running = threading.Event()
        running.set()

        def one_long(number: int) -> None:
            started = time.perf_counter()
            answer = client.get("/api/search", params={"q": long_query(number), "mode": "hybrid"}, timeout=300)
            long_ms.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, answer.text[:300]
            notices.update(answer.json().get("notices", []))

        def keywords(running: threading.Event = running) -> None:
            words = ["graph neural networks", "diffusion models", "contrastive learning", "bandits", "transformers"]
            index = 0
            while running.is_set():
                started = time.perf_counter()
                answer = client.get("/api/search", params={"q": words[index % 5], "mode": "keyword"}, timeout=300)
                keyword_ms.append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200
                index += 1

        side = threading.Thread(target=keywords)
        side.start()
        threads = [threading.Thread(target=one_long, args=(round_number * 10 + n,)) for n in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        running.clear()
        side.join()
    print(f"long hybrid (990 chars), 5 at once x {rounds}: n={len(long_ms)} p50 {pct(long_ms, .5):.0f} ms "
          f"p99 {pct(long_ms, .99):.0f} ms max {max(long_ms):.0f} ms")
    print(f"keyword beside them: n={len(keyword_ms)} p50 {pct(keyword_ms, .5):.0f} ms p99 {pct(keyword_ms, .99):.0f} ms "
          f"max {max(keyword_ms):.0f} ms")
    print("notices:", sorted(notices))


def imports(client: httpx.Client, data_dir: str, server: subprocess.Popen, repeat: int = 1) -> None:
    from papersift.export import to_bibtex
    from papersift.store import Store

    store = Store(data_dir, readonly=True)
    papers, _size, text = [], 0, ""
    for _, paper in store.iter_papers(0):
        papers.append(paper)
        if len(papers) % 500 == 0:
            text = to_bibtex(papers)
            if len(text.encode()) > 8_000_000:
                break
    text = to_bibtex(papers[:-500]) if len(text.encode()) > 8 * 1024 * 1024 else text
    body = text.encode()
    process = psutil.Process(server.pid)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for label, payload in [*((f"8 MB import #{n}", body) for n in range(1, repeat + 1)), ("16 MB import", body + body)]:
        peak, sampling = [process.memory_info().rss], threading.Event()
        sampling.set()

        def sample(sampling: threading.Event = sampling, peak: list[int] = peak) -> None:
            while sampling.is_set():
                peak.append(process.memory_info().rss)
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        before_cpu = sum(process.cpu_times()[:2])
        started = time.perf_counter()
        answer = client.post("/api/library/import", params={"dry_run": "true"}, content=payload, headers=auth,
                             timeout=600)
        seconds = time.perf_counter() - started
        sampling.clear()
        sampler.join()
        cpu = sum(process.cpu_times()[:2]) - before_cpu
        summary = answer.json()
        print(f"{label} ({len(payload) / 1e6:.1f} MB): {answer.status_code} in {seconds:.2f} s wall, {cpu:.2f} s server CPU, "
              f"server RSS {peak[0] / 2**20:.0f} -> peak {max(peak) / 2**20:.0f} MiB, after "
              f"{process.memory_info().rss / 2**20:.0f} MiB; "
              + (f"{summary.get('entries')} entries, {summary.get('matched')} matched" if answer.status_code == 200
                 else summary.get("message", "")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--src")
    parser.add_argument("--port", type=int, default=8104)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--imports", action="store_true")
    parser.add_argument("--no-queries", action="store_true")
    parser.add_argument("--repeat", type=int, default=1, help="8 MB imports one after another (RSS after each)")
    args = parser.parse_args()
    server = start(args.data_dir, args.src, args.port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{args.port}", timeout=300) as client:
            if not args.no_queries:
                queries(client, args.rounds)
            if args.imports:
                imports(client, args.data_dir, server, args.repeat)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
