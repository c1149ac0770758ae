"""Known-item dev hybrid pages split by stage in CPU time, after a server's warm-up, with the
e5 calls the page makes on the encoder thread timed too (docs/semantic.md, "Chinese hybrid pages:
where the rest goes").

    python scripts/zh_hybrid_split.py DATA_DIR [LANG]     # LANG zh (default) or en

Each page's stages (search/stages.py) are timed in the request thread's CPU time, which a busy
shared machine changes far less than wall time; a Chinese reading's parts get three more marks
here: reading.glossary (the glossary's pieces), reading.dictionary (the dictionary's senses) and
reading.composed (a token's composition and what follows it). Pass "fresh": each query once, no
query vector remembered; pass "remembered": again. Prints the request thread's CPU, the e5 model
calls (wherever they ran) and their CPU on the thread that made them, the process's CPU (all
threads: ONNX's second thread, BLAS) and the mean split; and in wall time, what waits on what:
the page, the reading (from its start to its end), and the e5 calls, each from the page's start
(the description's own embedding and its words', on the encoder thread), with the request
thread's wait for the dense vector (after its keyword searches).
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
from papersift.search import crosslingual, semantic, stages
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest

ENCODED = {"calls": 0, "cpu": 0.0}
_LOCK = threading.Lock()
WALL: dict[str, list[float]] = {}  # this page's marks, in wall seconds from its start
PAGE_STARTED = [0.0]


def marked_wall(name: str) -> None:
    with _LOCK:
        WALL.setdefault(name, []).append(time.perf_counter() - PAGE_STARTED[0])


def count_encodings() -> None:
    # the model call every query embedding makes, whichever path asked (encode_query, or the
    # description's started_query_encoding in search/semantic.py)
    encode_token_ids = encoder_module.Encoder.encode_token_ids

    def counted(self, *args, **kwargs):
        started = time.thread_time()
        marked_wall("model start")
        try:
            return encode_token_ids(self, *args, **kwargs)
        finally:
            marked_wall("model end")
            with _LOCK:
                ENCODED["calls"] += 1
                ENCODED["cpu"] += time.thread_time() - started

    encoder_module.Encoder.encode_token_ids = counted  # type: ignore[method-assign]


def wall_marks(owner, name: str, before: str, after: str) -> None:
    function = getattr(owner, name)

    def marked(*args, **kwargs):
        marked_wall(before)
        try:
            return function(*args, **kwargs)
        finally:
            marked_wall(after)

    setattr(owner, name, marked)


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
    wall_marks(SearchService, "reading_of", "reading start", "reading end")
    wall_marks(semantic.DenseRetriever, "_embed_query", "dense vector wait", "dense vector ready")
    service = SearchService(data_dir)
    Warmup().run(service, data_dir)  # as `serve` warms up before it says ready
    service.search(SearchRequest(query="warm up the encoder on graph networks", mode="hybrid", size=20))
    for label in ("fresh", "remembered"):
        ENCODED.update(calls=0, cpu=0.0)
        splits, thread_cpu, process_cpu, walls = [], [], [], []
        for query in queries:
            with stages.timed() as seconds:
                WALL.clear()
                thread_started, process_started = time.thread_time(), time.process_time()
                PAGE_STARTED[0] = time.perf_counter()
                service.search(SearchRequest(query=query, mode="hybrid", size=20))
                marked_wall("page end")
                thread_cpu.append(time.thread_time() - thread_started)
                process_cpu.append(time.process_time() - process_started)
            splits.append(dict(seconds))
            walls.append({name: marks[:2] for name, marks in WALL.items()})  # the first (and second) of each
        total: dict[str, float] = {}
        for split in splits:
            for name, value in split.items():
                total[name] = total.get(name, 0.0) + value
        pages = len(queries)
        print(f"{lang} {label}: request thread CPU {statistics.fmean(thread_cpu) * 1000:.1f} ms a page, "
              f"e5 calls {ENCODED['calls'] / pages:.1f} a page, {ENCODED['cpu'] / pages * 1000:.1f} ms CPU, "
              f"process CPU {statistics.fmean(process_cpu) * 1000:.1f} ms a page")
        print("  wall, median ms from the page's start: " + wall_line(walls))
        print("  split, ms of thread CPU a page: " + ", ".join(
            f"{name} {value / pages * 1000:.2f}" for name, value in sorted(total.items(), key=lambda item: -item[1])))


def wall_line(walls: list[dict[str, list[float]]]) -> str:
    """Median wall marks over the pages: the first reading, each e5 call, the wait for the dense
    vector, the page's end."""
    def median(name: str, nth: int = 0) -> str:
        values = [marks[name][nth] * 1000 for marks in walls if len(marks.get(name, ())) > nth]
        return f"{statistics.median(values):.1f}" if values else "-"
    return (f"reading {median('reading start')}-{median('reading end')}, "
            f"e5 call 1 {median('model start')}-{median('model end')}, "
            f"e5 call 2 {median('model start', 1)}-{median('model end', 1)}, "
            f"dense vector waited for {median('dense vector wait')}-{median('dense vector ready')}, "
            f"page {median('page end')}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "zh")
