"""Known-item dev hybrid pages split by stage in CPU time, after a server's warm-up, with the
e5 calls the page makes on the encoder thread timed too (docs/semantic.md, "Chinese hybrid pages:
where the rest goes").

    python scripts/zh_hybrid_split.py DATA_DIR [LANG]     # LANG zh (default) or en

Each page's stages (search/stages.py) are timed in the request thread's CPU time, which a busy
shared machine changes far less than wall time; a Chinese reading's parts get three more marks
here: reading.glossary (the glossary's pieces), reading.dictionary (the dictionary's senses) and
reading.composed (a token's composition and what follows it). Pass "fresh": each query once, no
query vector remembered; pass "remembered": again. Prints the request thread's CPU, the e5 calls
(wherever they ran) and their CPU on the thread that made them, the process's CPU (all threads:
ONNX's second thread, BLAS) and the mean split.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
import types
from pathlib import Path

import orjson

from papersift.api.warmup import Warmup
from papersift.config import shared_data_dir
from papersift.index import encoder as encoder_module
from papersift.search import crosslingual, stages
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest

ENCODED = {"calls": 0, "cpu": 0.0}
_LOCK = threading.Lock()


def count_encodings() -> None:
    encode_query = encoder_module.Encoder.encode_query

    def counted(self, text):
        started = time.thread_time()
        try:
            return encode_query(self, text)
        finally:
            with _LOCK:
                ENCODED["calls"] += 1
                ENCODED["cpu"] += time.thread_time() - started

    encoder_module.Encoder.encode_query = counted  # type: ignore[method-assign]


def mark(module, name: str, label: str) -> None:
    function = getattr(module, name)

    def marked(*args, **kwargs):
        with stages.stage(label):
            return function(*args, **kwargs)

    setattr(module, name, marked)


def main(data_dir: Path, lang: str) -> None:
    stages.time = types.SimpleNamespace(perf_counter=time.thread_time)  # type: ignore[assignment]  # stages in CPU time
    count_encodings()
    for name, label in (("english_query", "reading.dictionary"), ("glossary_pieces", "reading.glossary"),
                        ("_composed", "reading.composed")):
        mark(crosslingual, name, label)
    lines = (shared_data_dir() / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines()
    queries = [record["text"] for record in map(orjson.loads, lines) if record["lang"] == lang]
    service = SearchService(data_dir)
    Warmup().run(service, data_dir)  # as `serve` warms up before it says ready
    service.search(SearchRequest(query="warm up the encoder on graph networks", mode="hybrid", size=20))
    for label in ("fresh", "remembered"):
        ENCODED.update(calls=0, cpu=0.0)
        splits, thread_cpu, process_cpu = [], [], []
        for query in queries:
            with stages.timed() as seconds:
                thread_started, process_started = time.thread_time(), time.process_time()
                service.search(SearchRequest(query=query, mode="hybrid", size=20))
                thread_cpu.append(time.thread_time() - thread_started)
                process_cpu.append(time.process_time() - process_started)
            splits.append(dict(seconds))
        total: dict[str, float] = {}
        for split in splits:
            for name, value in split.items():
                total[name] = total.get(name, 0.0) + value
        pages = len(queries)
        print(f"{lang} {label}: request thread CPU {statistics.fmean(thread_cpu) * 1000:.1f} ms a page, "
              f"e5 calls {ENCODED['calls'] / pages:.1f} a page, {ENCODED['cpu'] / pages * 1000:.1f} ms CPU, "
              f"process CPU {statistics.fmean(process_cpu) * 1000:.1f} ms a page")
        print("  split, ms of thread CPU a page: " + ", ".join(
            f"{name} {value / pages * 1000:.2f}" for name, value in sorted(total.items(), key=lambda item: -item[1])))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "zh")
