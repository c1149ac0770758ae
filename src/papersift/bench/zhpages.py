"""Chinese term pages against their English twins on the server (issue 32: a Chinese dev-term
page's server-side p50 within 2x an English page's).

Each of the zhterms dev terms (300 Chinese, their 300 English twins) is asked once, as a user
asks a new term, of a `papersift serve` started for that language and target alone (after its
warm-up: /healthz ready, then two unrelated queries), so no term finds another's work in the
server's memos (a Chinese reading's English words are its twin's; a page's reading is
remembered for the API). The time is the server's own (`Server-Timing`: routing, the search,
rendering; not the client's), for the result page (`/`, the Chinese page as the seed page
shows it) and the JSON API (`/api/search`), in each mode asked.
"""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx
import orjson

from papersift.bench.web import percentile, server_ms
from papersift.bench.write_load import free_port, papersift_command
from papersift.config import shared_data_dir

TARGETS = {"page": "/", "api": "/api/search"}
WARM_UP_QUERIES = ("预热 图神经网络", "warm up")  # no dev term: the server's first page and its templates
READY_TIMEOUT_S = 600.0


class Client(Protocol):
    def get(self, url: str, *, params: Any = None) -> httpx.Response: ...


Serve = Callable[[Path], contextlib.AbstractContextManager[Client]]


def dev_terms(lang: str, shared: Path | None = None) -> list[str]:
    """The zhterms dev terms of one language, in the file's order."""
    path = (shared or shared_data_dir()) / "zhterms" / "queries_dev.jsonl"
    records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return [record["text"] for record in records if record["lang"] == lang]


def time_terms(client: Client, target: str, terms: Sequence[str], mode: str) -> list[float]:
    """Server-side ms of each term's answer, each asked once, after the warm-up queries."""
    path = TARGETS[target]
    for query in WARM_UP_QUERIES:
        server_ms(client.get(path, params={"q": query, "mode": mode, "lang": "zh"}))
    return [server_ms(client.get(path, params={"q": term, "mode": mode, "lang": "zh"})) for term in terms]


@contextlib.contextmanager
def served(data_dir: Path) -> Iterator[Client]:
    """A fresh `papersift serve` on the data dir (a free loopback port), once /healthz says it is
    ready; stopped (SIGINT, as Ctrl-C) when the block ends."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(papersift_command("serve", "--data-dir", str(data_dir), "--port", str(port)),
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=READY_TIMEOUT_S) as client:
                deadline = time.monotonic() + READY_TIMEOUT_S
                while True:
                    with contextlib.suppress(httpx.HTTPError):
                        if client.get("/healthz").status_code == 200:
                            break
                    if server.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        tail = log.read().decode(errors="replace")[-1000:]
                        raise RuntimeError(f"papersift serve did not get ready on {data_dir}: {tail}")
                    time.sleep(0.2)
                yield client
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def summary(values_ms: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values_ms), 2), "p95": round(percentile(values_ms, 0.95), 2),
            "p99": round(percentile(values_ms, 0.99), 2), "mean": round(statistics.fmean(values_ms), 2)}


def run(data_dir: Path, modes: Sequence[str] = ("keyword", "hybrid"), targets: Sequence[str] = ("page", "api"),
        limit: int | None = None, serve: Serve = served, shared: Path | None = None,
        log: Callable[[str], None] = lambda message: None) -> dict:
    """Each mode and target: the zh and en terms' server-side times, each language on a server of its own."""
    terms = {lang: dev_terms(lang, shared)[:limit] for lang in ("zh", "en")}
    runs = []
    for mode in modes:
        for target in targets:
            timed = {}
            for lang, asked in terms.items():
                log(f"{mode} {target} {lang}: a fresh server, {len(asked)} terms")
                with serve(data_dir) as client:
                    timed[lang] = summary(time_terms(client, target, asked, mode))
            ratio = {name: round(timed["zh"][name] / timed["en"][name], 2) if timed["en"][name] else None
                     for name in ("p50", "p99")}
            runs.append({"mode": mode, "target": target, "terms": len(terms["zh"]), **timed, "zh_over_en": ratio})
    return {"data_dir": str(data_dir), "load_before": round(os.getloadavg()[0], 2), "runs": runs}


def markdown(report: dict) -> str:
    lines = [
        "# papersift bench zhpages — Chinese dev-term pages against their English twins",
        "",
        (f"Data dir `{report['data_dir']}`; load before {report['load_before']}. Server-side ms (Server-Timing), "
         "each term asked once of a fresh `papersift serve` per language and target."),
        "",
        "| mode | target | terms | zh p50 | zh p95 | zh p99 | en p50 | en p95 | en p99 | zh/en p50 | zh/en p99 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["runs"]:
        zh, en, ratio = row["zh"], row["en"], row["zh_over_en"]
        lines.append(f"| {row['mode']} | {row['target']} | {row['terms']} | {zh['p50']} | {zh['p95']} | {zh['p99']} "
                     f"| {en['p50']} | {en['p95']} | {en['p99']} | {ratio['p50']}× | {ratio['p99']}× |")
    return "\n".join(lines) + "\n"
