"""Lexical benchmark: papersift keyword search against bm25s on the same corpus and queries.

Both engines index the same papers (title + abstract + keywords) in the same process
and answer the same real query strings one at a time on one thread. papersift answers
full result pages (20 hits with papers, total, facet counts, highlighted title and
abstract), as the page and the API ask for them; bm25s returns the top 20 ids.
papersift_engine times the tantivy calls of those pages alone (each query compiled
beforehand): the floor under papersift_search that no Python around the engine can go below.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import random
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import orjson

from papersift.config import DEFAULT_PAGE_SIZE, shared_data_dir
from papersift.index import lexical
from papersift.index.rows import RowReader
from papersift.ingest.pipeline import ingest_paths
from papersift.record import Paper
from papersift.search.query import parse_query
from papersift.search.service import RELAXED_DEPTH, SearchService
from papersift.search.stages import timed
from papersift.search.tantivy_backend import FACET_AGGREGATION, TantivyBackend
from papersift.search.types import SearchRequest
from papersift.store import Store

TOP_K = DEFAULT_PAGE_SIZE


@dataclass(frozen=True, slots=True)
class Latency:
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    qps: float

    @classmethod
    def of(cls, seconds: list[float]) -> Latency:
        ordered = sorted(seconds)

        def percentile(share: float) -> float:
            return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000

        return cls(percentile(0.50), percentile(0.95), percentile(0.99),
                   statistics.fmean(ordered) * 1000, len(ordered) / sum(ordered))


@dataclass
class BenchReport:
    corpus: str
    papers: int
    queries: int
    repeats: int
    build_s: dict[str, float] = field(default_factory=dict)
    index_bytes: dict[str, int] = field(default_factory=dict)
    latency: dict[str, Latency] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # query set -> engine -> mean ms (the sets cost very differently: short log queries and
    # long known-item descriptions)
    set_means_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    set_sizes: dict[str, int] = field(default_factory=dict)
    # papersift_search's mean ms a page per stage (search/stages.py), over the timed passes
    stage_ms: dict[str, float] = field(default_factory=dict)
    rows: dict[str, float] = field(default_factory=dict)  # row store: bytes a paper, decode ms a page

    def to_dict(self) -> dict:
        search = self.latency["papersift_search"]
        return {
            "qps": search.qps,
            "bm25s_qps": self.latency["bm25s"].qps,
            "ratio": search.qps / self.latency["bm25s"].qps,
            "engine_ratio": self.latency["papersift_engine"].qps / self.latency["bm25s"].qps,
            **({"bm25s_numba_qps": self.latency["bm25s_numba"].qps} if "bm25s_numba" in self.latency else {}),
            "corpus": self.corpus, "papers": self.papers, "queries": self.queries, "repeats": self.repeats,
            "build_s": self.build_s, "index_bytes": self.index_bytes,
            "latency": {name: {key: round(value, 4) for key, value in vars_of(latency).items()}
                        for name, latency in self.latency.items()},
            "rss_mb": self.rss_mb, "notes": self.notes,
            "stage_ms": {name: round(value, 4) for name, value in self.stage_ms.items()},
            "rows": self.rows,
            "by_query_set": {name: {"queries": self.set_sizes[name],
                                    "mean_ms": {engine: round(value, 4) for engine, value in means.items()}}
                             for name, means in self.set_means_ms.items()},
        }

    def markdown(self) -> str:
        rows = [
            "| engine | build s | index MB | p50 ms | p95 ms | p99 ms | mean ms | QPS |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        engines = {"papersift_search": "papersift", "papersift_engine": "papersift", "papersift_rank": "papersift",
                   "bm25s": "bm25s", "bm25s_numba": "bm25s"}
        for name, latency in self.latency.items():
            engine = engines[name]
            rows.append(
                f"| {name} | {self.build_s.get(engine, 0):.2f} | {self.index_bytes.get(engine, 0) / 1e6:.1f} | "
                f"{latency.p50_ms:.3f} | {latency.p95_ms:.3f} | {latency.p99_ms:.3f} | {latency.mean_ms:.3f} | "
                f"{latency.qps:,.0f} |")
        data = self.to_dict()
        lines = [
            "# Lexical benchmark: papersift (tantivy) vs bm25s",
            "",
            f"{self.papers:,} papers ({self.corpus}), {self.queries} queries × {self.repeats} runs, one thread.",
            "",
            *rows,
            "",
            (
                f"**QPS ratio papersift_search / bm25s: {data['ratio']:.2f}×** (papersift_search: full pages with "
                "papers, total, facets and highlights; papersift_engine: only the tantivy calls of those pages, "
                f"{data['engine_ratio']:.2f}× bm25s; papersift_rank: ids only, any word may match; bm25s: top-20 ids "
                "with its default numpy backend, in the calling thread; bm25s_numba, when numba is installed: its "
                "numba backend)."
            ),
            "",
            *self._set_table(),
            *self._stage_lines(),
            "RSS (MB): " + ", ".join(f"{name} {value:.0f}" for name, value in self.rss_mb.items()),
            *[f"\n{note}" for note in self.notes],
        ]
        return "\n".join(lines) + "\n"

    def _stage_lines(self) -> list[str]:
        lines = []
        if self.stage_ms:
            lines += ["papersift_search page time split (mean ms a page, same passes): "
                      + ", ".join(f"{name} {value:.3f}" for name, value in
                                  sorted(self.stage_ms.items(), key=lambda item: -item[1])), ""]
        if self.rows:
            rows = self.rows
            lines += [(f"Row store: {rows['bytes_per_paper']:.0f} bytes a paper ({rows['json_bytes_per_paper']:.0f} as JSON); "
                      f"decoding a page of {PAGE_ROWS} random rows: {rows['decode_ms_per_page']:.3f} ms "
                      f"(a new decompressor per row, as before: {rows['fresh_decode_ms_per_page']:.3f} ms; "
                      f"records and Paper objects: {rows['papers_ms_per_page']:.3f} ms)."), ""]
        return lines

    def _set_table(self) -> list[str]:
        if not self.set_means_ms:
            return []
        engines = list(self.latency)
        lines = ["Mean ms by query set (same run):", "", "| query set | queries | " + " | ".join(engines)
                 + " | bm25s / papersift_search |", "|---|---:|" + "---:|" * (len(engines) + 1)]
        for name, means in self.set_means_ms.items():
            ratio = means["bm25s"] / means["papersift_search"]
            lines.append(f"| {name} | {self.set_sizes[name]} | " + " | ".join(f"{means[engine]:.3f}" for engine in engines)
                         + f" | {ratio:.2f}× |")
        return [*lines, ""]


def vars_of(latency: Latency) -> dict[str, float]:
    return {name: getattr(latency, name) for name in Latency.__slots__}


def rss_mb() -> float:
    """Current resident set size of this process."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_query_sets(shared: Path | None = None) -> dict[str, list[str]]:
    """The 100 Semantic Scholar CS log queries and the English known-item queries, by set."""
    shared = shared or shared_data_dir()
    log = [orjson.loads(line)["query"] for line in _lines(shared / "s2cs_queries" / "s2_query.jsonl")]
    known_item = [record["text"] for record in map(orjson.loads, _lines(shared / "knownitem" / "queries_dev.jsonl"))
                  if record.get("lang") == "en"]
    return {"s2cs_queries": log, "knownitem_en": known_item}


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def bench_queries(shared: Path | None = None) -> list[str]:
    return [query for queries in bench_query_sets(shared).values() for query in queries]


def set_means_ms(seconds: list[float], sets: dict[str, list[str]]) -> dict[str, float]:
    """Mean ms per query set of one engine's times (query order, repeated)."""
    labels = [name for name, queries in sets.items() for _ in queries]
    per_set: dict[str, list[float]] = {name: [] for name in sets}
    for at, value in enumerate(seconds):
        per_set[labels[at % len(labels)]].append(value)
    return {name: statistics.fmean(values) * 1000 for name, values in per_set.items() if values}


def paper_text(paper: Paper) -> str:
    return " ".join([paper.title, paper.abstract or "", *paper.keywords])


def engine_calls(backend: TantivyBackend, queries: list[str]) -> Callable[[str], list]:
    """Each query's page as tantivy calls alone, compiled beforehand (mirrors TantivyBackend.search):
    when all words match, the ranked page and, unless it holds every match, the facet
    aggregation; else the failed all-words try and the relaxed query's best RELAXED_DEPTH."""
    searcher = backend.searcher
    prepared: dict[str, list[Callable[[], object]]] = {}
    for text in queries:
        query = parse_query(text)
        plan = backend.plan(query)
        page = searcher.search(plan.scored, TOP_K, count=False).hits
        calls: list[Callable[[], object]] = [partial(rows_of_hits, searcher, plan.scored, TOP_K)]
        if len(page) == TOP_K:
            calls.append(partial(searcher.aggregate, plan.matching, FACET_AGGREGATION))
        elif not page and not plan.ignored:
            relaxed = backend.plan(query.relaxed())
            calls.append(partial(rows_of_hits, searcher, relaxed.scored, RELAXED_DEPTH))
        prepared[text] = calls

    def answer(text: str) -> list:
        return [call() for call in prepared[text]]
    return answer


def rows_of_hits(searcher, compiled, depth: int) -> list[int]:
    hits = searcher.search(compiled, depth, count=False).hits
    return searcher.fast_field_values("row", [address for _, address in hits]) if hits else []


PAGE_ROWS = TOP_K


def row_decoding(folder: Path, pages: int = 500, seed: int = 1) -> dict[str, float]:
    """The row store's size a paper and the cost of a page's rows: `pages` pages of PAGE_ROWS
    random rows, each way timed over the same pages (best of 3 passes, against noise)."""
    reader = RowReader(folder)
    snapshot = reader._rows
    count = len(reader)
    chosen = random.Random(seed).choices(range(count), k=pages * PAGE_ROWS)
    batches = [chosen[at:at + PAGE_ROWS] for at in range(0, len(chosen), PAGE_ROWS)]
    records, offsets, unpacker = snapshot.records, snapshot.offsets, snapshot.unpacker

    def primed(rows: list[int]) -> list[bytes]:
        return [unpacker.unpack(records, offsets[row], offsets[row + 1]) for row in rows]

    def fresh(rows: list[int]) -> list[bytes]:
        return [unpacker.fresh(records, offsets[row], offsets[row + 1]) for row in rows]

    def best_ms(decode: Callable[[list[int]], object]) -> float:
        passes = []
        for _ in range(3):
            started = time.perf_counter()
            for rows in batches:
                decode(rows)
            passes.append((time.perf_counter() - started) / len(batches) * 1000)
        return min(passes)

    json_bytes = sum(len(payload) for payload in primed(chosen[:2000])) / min(2000, len(chosen))
    return {"papers": count, "bytes_per_paper": round(offsets[-1] / max(count, 1), 1),
            "json_bytes_per_paper": round(json_bytes, 1),
            "decode_ms_per_page": round(best_ms(primed), 4), "fresh_decode_ms_per_page": round(best_ms(fresh), 4),
            "papers_ms_per_page": round(best_ms(reader.papers), 4)}


def time_interleaved(queries: list[str], engines: dict[str, Callable[[str], object]],
                     repeats: int, before_timing: Callable[[], None] = lambda: None) -> dict[str, list[float]]:
    """Seconds per query and engine. Engines take turns on each query, so a busy moment
    on the machine slows all of them alike instead of whichever ran then."""
    for query in queries:  # warm-up pass: page cache, lazy imports, allocator
        for answer in engines.values():
            answer(query)
    before_timing()
    seconds: dict[str, list[float]] = {name: [] for name in engines}
    gc.disable()
    try:
        for _ in range(repeats):
            for query in queries:
                for name, answer in engines.items():
                    started = time.perf_counter()
                    answer(query)
                    seconds[name].append(time.perf_counter() - started)
    finally:
        gc.enable()
    return seconds


def run(corpus: Path | None = None, repeats: int = 3, work_dir: Path | None = None,
        log: Callable[[str], None] = lambda message: None) -> BenchReport:
    import bm25s
    import Stemmer

    corpus = corpus or shared_data_dir() / "ml_papers" / "papers.jsonl.gz"
    sets = bench_query_sets()
    queries = [query for set_queries in sets.values() for query in set_queries]
    scratch = Path(tempfile.mkdtemp(prefix="papersift-bench-", dir=work_dir))
    try:
        log(f"ingesting {corpus}")
        summary = ingest_paths(Store(scratch), [corpus])
        store = Store(scratch, readonly=True)
        paper_count = store.count()  # papers are streamed from the store, never held in a list
        report = BenchReport(str(corpus), paper_count, len(queries), repeats)
        if summary.rejected:
            report.notes.append(f"{summary.rejected} corpus records were rejected by validation")
        report.rss_mb["start"] = rss_mb()

        log("building the tantivy index")
        built = lexical.build(scratch)
        report.build_s["papersift"] = built.seconds
        report.index_bytes["papersift"] = lexical.index_size_bytes(built.folder)
        service = SearchService(scratch)
        split: dict[str, float] = {}
        pages = [0]

        def search(query: str):
            with timed() as seconds:
                response = service.search(SearchRequest(query=query, mode="keyword", size=TOP_K))
            for name, value in seconds.items():
                split[name] = split.get(name, 0.0) + value
            pages[0] += 1
            return response

        def reset_split() -> None:
            split.clear()
            pages[0] = 0

        search(queries[0])
        report.rss_mb["after_papersift"] = rss_mb()

        log("building bm25s")
        stemmer = Stemmer.Stemmer("english")
        started = time.perf_counter()
        tokens = bm25s.tokenize((paper_text(paper) for _, paper in store.iter_papers(0)), stopwords="en",
                                stemmer=stemmer, show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        report.build_s["bm25s"] = time.perf_counter() - started
        saved = scratch / "bm25s"
        retriever.save(str(saved))
        report.index_bytes["bm25s"] = sum(path.stat().st_size for path in saved.rglob("*") if path.is_file())
        report.rss_mb["after_bm25s"] = rss_mb()

        def bm25s_engine(index: bm25s.BM25):
            def answer(query: str):
                query_tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
                if not query_tokens.vocab:
                    return None
                # n_threads=0 (its default): in this thread. 1 would start a thread pool for every query.
                return index.retrieve(query_tokens, k=min(TOP_K, paper_count), show_progress=False, n_threads=0)
            return answer

        if not isinstance(service.backend, TantivyBackend):
            raise TypeError("the lexical benchmark measures the embedded (tantivy) backend")
        engines = {"papersift_search": search, "papersift_engine": engine_calls(service.backend, queries),
                   "papersift_rank": lambda q: service.rank(q, TOP_K), "bm25s": bm25s_engine(retriever)}
        if importlib.util.find_spec("numba") is not None:
            # bm25s's optional numba backend (numba is not a papersift dependency; ranx brings it).
            numba_retriever = bm25s.BM25(backend="numba")
            numba_retriever.index(tokens, show_progress=False)
            engines["bm25s_numba"] = bm25s_engine(numba_retriever)
        del tokens

        log(f"timing {len(queries)} queries × {repeats}, engines interleaved")
        report.set_sizes = {name: len(set_queries) for name, set_queries in sets.items()}
        for name, seconds in time_interleaved(queries, engines, repeats, reset_split).items():
            report.latency[name] = Latency.of(seconds)
            for set_name, mean in set_means_ms(seconds, sets).items():
                report.set_means_ms.setdefault(set_name, {})[name] = mean
        report.stage_ms = {name: value / pages[0] * 1000 for name, value in split.items()}
        log("timing row decoding")
        report.rows = row_decoding(built.folder)
        report.notes.append(
            f"papersift index build: {built.documents:,} papers in {built.seconds:.2f} s "
            f"({built.documents / built.seconds:,.0f} papers/s); CPU cores visible: {os.cpu_count()}; "
            f"load average at the end: {os.getloadavg()[0]:.1f}.")
        return report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
