"""Chinese zhterms dev terms against their English twins, one keyword and one hybrid page each,
in process after a server's warm-up (what `serve` loads before /healthz says ready), with each
page's time split by stage (docs/search.md, "Chinese term pages"; docs/crosslingual.md, "Speed"):
the mean split over all pages, then the split of the middle fifth of the pages (ranked by their
time: what a median page spends, which the mean, led by the few terms read by phrase neighbours,
does not show). `--cpu`: stages and pages in the thread's CPU time, which a busy shared machine
changes far less than wall time (as scripts/page_cpu_split.py). `--langs zh,en` (the default):
which languages, in this order. The second language's pages find the first's caches warm (the
English words of the Chinese readings are their twins': highlight patterns, analyzed words, index
pages), so a fair comparison runs each language in a process of its own (`--langs zh`, then
`--langs en`).

    python scripts/zh_en_pages.py DATA_DIR [MODES] [--cpu] [--langs zh,en]     # MODES: keyword,hybrid (default)
"""

from __future__ import annotations

import statistics
import sys
import time
import types
from pathlib import Path

import orjson

from papersift.api.warmup import Warmup
from papersift.config import shared_data_dir
from papersift.search import stages
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000


def split_text(splits: list[dict[str, float]]) -> str:
    """The stages' mean ms a page over these pages' splits, most first."""
    total: dict[str, float] = {}
    for split in splits:
        for name, value in split.items():
            total[name] = total.get(name, 0.0) + value
    return ", ".join(f"{name} {value / len(splits) * 1000:.2f}" for name, value in sorted(total.items(), key=lambda item: -item[1]))


def main(data_dir: Path, modes: list[str], cpu: bool = False, langs: tuple[str, ...] = ("zh", "en")) -> None:
    if cpu:
        stages.time = types.SimpleNamespace(perf_counter=time.thread_time)  # type: ignore[assignment]  # stages in CPU time
    lines = (shared_data_dir() / "zhterms" / "queries_dev.jsonl").read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    service = SearchService(data_dir)
    Warmup().run(service, data_dir)  # as `serve` warms up before it says ready
    for mode in modes:
        service.search(SearchRequest(query="预热 图神经网络", mode=mode, size=20))
        service.search(SearchRequest(query="warm up", mode=mode, size=20))
    for mode in modes:
        for lang in langs:
            took: list[float] = []
            cpu_took: list[float] = []  # the thread's CPU time a page: what a busy shared machine changes least
            splits: list[dict[str, float]] = []
            for record in records:
                if record["lang"] != lang:
                    continue
                with stages.timed() as seconds:
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    service.search(SearchRequest(query=record["text"], mode=mode, size=20))
                    took.append(time.perf_counter() - started)
                    cpu_took.append(time.thread_time() - started_cpu)
                splits.append(seconds)
            ranked = sorted(range(len(took)), key=(cpu_took if cpu else took).__getitem__)
            middle = [splits[at] for at in ranked[2 * len(ranked) // 5:3 * len(ranked) // 5]]
            print(f"{mode} {lang} ({len(took)} pages): p50 {percentile(took, 0.5):.1f} p95 {percentile(took, 0.95):.1f} "
                  f"p99 {percentile(took, 0.99):.1f} mean {statistics.fmean(took) * 1000:.1f} ms "
                  f"(CPU p50 {percentile(cpu_took, 0.5):.2f} p99 {percentile(cpu_took, 0.99):.1f}); "
                  f"{'CPU ' if cpu else ''}split, mean: {split_text(splits)}; middle fifth: {split_text(middle)}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = ("zh", "en")
    if "--langs" in arguments:
        at = arguments.index("--langs")
        chosen = tuple(arguments[at + 1].split(","))
        del arguments[at:at + 2]
    plain = [argument for argument in arguments if argument != "--cpu"]
    main(Path(plain[0]), plain[1].split(",") if len(plain) > 1 else ["keyword", "hybrid"], "--cpu" in arguments, chosen)
