"""Chinese zhterms dev terms against their English twins, one keyword and one hybrid page each,
in process after a server's warm-up (what `serve` loads before /healthz says ready), with each
page's time split by stage (docs/search.md, "Chinese term pages"; docs/crosslingual.md, "Speed").

    python scripts/zh_en_pages.py DATA_DIR [MODES]     # MODES: keyword,hybrid (default)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import orjson

from papersift.api.warmup import Warmup
from papersift.config import shared_data_dir
from papersift.search.service import SearchService
from papersift.search.stages import timed
from papersift.search.types import SearchRequest


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000


def main(data_dir: Path, modes: list[str]) -> None:
    lines = (shared_data_dir() / "zhterms" / "queries_dev.jsonl").read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    service = SearchService(data_dir)
    Warmup().run(service, data_dir)  # as `serve` warms up before it says ready
    for mode in modes:
        service.search(SearchRequest(query="预热 图神经网络", mode=mode, size=20))
        service.search(SearchRequest(query="warm up", mode=mode, size=20))
    for mode in modes:
        for lang in ("zh", "en"):
            took: list[float] = []
            cpu: list[float] = []  # the thread's CPU time a page: what a busy shared machine changes least
            split: dict[str, float] = {}
            for record in records:
                if record["lang"] != lang:
                    continue
                with timed() as seconds:
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    service.search(SearchRequest(query=record["text"], mode=mode, size=20))
                    took.append(time.perf_counter() - started)
                    cpu.append(time.thread_time() - started_cpu)
                for name, value in seconds.items():
                    split[name] = split.get(name, 0.0) + value
            stages = ", ".join(f"{name} {value / len(took) * 1000:.2f}"
                               for name, value in sorted(split.items(), key=lambda item: -item[1]))
            print(f"{mode} {lang} ({len(took)} pages): p50 {percentile(took, 0.5):.1f} p95 {percentile(took, 0.95):.1f} "
                  f"p99 {percentile(took, 0.99):.1f} mean {statistics.fmean(took) * 1000:.1f} ms "
                  f"(CPU p50 {percentile(cpu, 0.5):.2f} p99 {percentile(cpu, 0.99):.1f}); {stages}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2].split(",") if len(sys.argv) > 2 else ["keyword", "hybrid"])
