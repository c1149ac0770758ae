"""Vector storage and HNSW benchmark (issue 20, "vectors that fit at 1M").

On one vectors generation of a data dir, against exact float32 search over its rows (the
truth; a generation stored as float16 is widened, and the report says so):
- exact search per storage kind: recall@20 of numpy search over the rows stored as float16 and
  as int8 (centred, one scale per dimension: the best int8 form measured), and its latency;
- HNSW (usearch) per storage kind x connectivity x expansion_add (one build each), each build
  searched at every expansion_search: build seconds, index file size, recall@20, p50 / p99
  query latency, and the process RSS after the queries ran on the saved index opened as a
  memory-mapped view (as a server opens it).
Recall is over papers, as search ranks them (a paper's best passage), at depth 20; the
latency is of the search alone (queries are embedded once beforehand).
Queries: bench semantic's (100 S2 queries + the known-item dev queries) embedded with the
generation's model.
"""

from __future__ import annotations

import gc
import itertools
import platform
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from papersift.bench.semantic import latency_summary
from papersift.index import vectors as vector_store

TOP_K = 20
STORAGE_KINDS = vector_store.ANN_SCALAR_KINDS  # int8 is measured here, not offered (vectors.STORAGE_KINDS)


def process_rss_mb() -> float:
    """Resident set size of this process now (not the peak), MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return round(pages * 4096 / 2**20, 1)


def papers_of(rows: Sequence[int] | np.ndarray, row_papers: np.ndarray, k: int) -> list[int]:
    """The first k distinct papers among rows ranked best first (a paper scores by its best row)."""
    seen: dict[int, None] = {}
    for row in rows:
        seen.setdefault(int(row_papers[row]), None)
        if len(seen) == k:
            break
    return list(seen)


def recall(found: Sequence[Sequence[int]], truth: Sequence[Sequence[int]]) -> float:
    return round(float(np.mean([len(set(f) & set(t)) / max(len(t), 1) for f, t in zip(found, truth)])), 4)


def int8_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int8 rows, mean, per-dimension scale): rows centred (a shift that leaves every query's
    ranking unchanged) and scaled per dimension to [-127, 127]. A query scores as
    (query / scale) . rows + query . mean."""
    mean = matrix.mean(axis=0, dtype=np.float64).astype(np.float32)
    centred = matrix - mean
    scale = (127.0 / np.maximum(np.abs(centred).max(axis=0), 1e-12)).astype(np.float32)
    return np.round(centred * scale).astype(np.int8), mean, scale


def timed_search(queries: np.ndarray, search: Callable[[np.ndarray], np.ndarray], row_papers: np.ndarray,
                 k: int) -> tuple[list[list[int]], dict]:
    found, seconds = [], []
    for query in queries:
        started = time.perf_counter()
        rows = search(query)
        seconds.append(time.perf_counter() - started)
        found.append(papers_of(rows, row_papers, k))
    return found, latency_summary(seconds)


def exact_rows(matrix: np.ndarray, depth: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda query: vector_store.top_k(matrix @ query, depth)


def ann_rows(view, depth: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda query: np.asarray(view.search(query, depth).keys, dtype=np.int64)


def run(index: vector_store.VectorIndex, queries: np.ndarray, connectivity: Sequence[int] = (16, 32),
        expansion_add: Sequence[int] = (128,), expansion_search: Sequence[int] = (64, 128, 256, 512),
        storage: Sequence[str] = STORAGE_KINDS, threads: int = 0, exact_kinds: bool = True,
        log: Callable[[str], None] = lambda _: None) -> dict:
    """The sweep over one generation's rows; `queries` are unit query vectors of its model.
    A generation past the ANN size is measured first with its own HNSW index (build_s None),
    as a server searches it; an empty `storage` skips the builds."""
    row_papers = np.unique(np.asarray(index.paper_ids), return_inverse=True)[1]
    depth = TOP_K * index.rows_per_paper
    matrix = np.asarray(index.vectors, dtype=np.float32)  # the truth (float32 whatever the file holds)
    queries = np.asarray(queries, dtype=np.float32)
    report: dict = {"folder": str(index.folder), "model": index.meta.model, "rows": len(index),
                    "papers": int(row_papers.max()) + 1 if len(row_papers) else 0, "dim": int(matrix.shape[1]),
                    "stored_as": index.meta.storage, "queries": len(queries), "k": TOP_K,
                    "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                    "rss_mb_with_vectors": process_rss_mb(), "exact": [], "hnsw": []}
    truth, latency = timed_search(queries, exact_rows(matrix, depth), row_papers, TOP_K)
    report["exact"].append({"storage": "f32", "recall": 1.0, "bytes": matrix.nbytes, **latency})
    if exact_kinds:
        half = matrix.astype(np.float16)
        found, latency = timed_search(queries, lambda q: vector_store.top_k(
            np.concatenate([block.astype(np.float32) @ q for block in np.array_split(half, max(1, len(half) // 65536))]),
            depth), row_papers, TOP_K)
        report["exact"].append({"storage": "f16", "recall": recall(found, truth), "bytes": half.nbytes, **latency})
        del half
        rows8, mean, scale = int8_rows(matrix)
        found, latency = timed_search(queries, lambda q: vector_store.top_k(rows8 @ (q / scale) + float(q @ mean), depth),
                                      row_papers, TOP_K)
        report["exact"].append({"storage": "i8", "recall": recall(found, truth), "bytes": rows8.nbytes, **latency})
        del rows8
        for row in report["exact"]:
            log(f"exact {row['storage']}: recall@{TOP_K} {row['recall']} p50 {row['p50_ms']} ms")

    def measure(path: Path, kind: str, build_s: float | None, add: int | None) -> None:
        """Search the saved index at every expansion_search (expansion_add is not saved with it)."""
        gc.collect()
        before = process_rss_mb()
        view = vector_store.usearch_index_class().restore(str(path), view=True)
        for search_expansion in expansion_search:
            view.expansion_search = search_expansion
            found, latency = timed_search(queries, ann_rows(view, depth), row_papers, TOP_K)
            row = {"storage": kind, "connectivity": int(view.connectivity), "expansion_add": add,
                   "expansion_search": search_expansion, "build_s": build_s, "index_bytes": path.stat().st_size,
                   "recall": recall(found, truth), **latency, "rss_mb": process_rss_mb(),
                   "view_rss_mb": round(process_rss_mb() - before, 1)}
            report["hnsw"].append(row)
            log(f"hnsw {kind} M={row['connectivity']} add={row['expansion_add']} search={search_expansion}: "
                f"recall@{TOP_K} {row['recall']} p50 {row['p50_ms']} ms p99 {row['p99_ms']} ms build {build_s} s")

    if index.meta.ann and (index.folder / "ann.usearch").exists():
        measure(index.folder / "ann.usearch", index.meta.storage, None, None)
    with tempfile.TemporaryDirectory(prefix="papersift-bench-vectors-") as scratch:
        for kind, degree, add in itertools.product(storage, connectivity, expansion_add):
            path = Path(scratch) / f"{kind}-{degree}-{add}.usearch"
            gc.collect()
            started = time.perf_counter()
            vector_store.build_ann(matrix, path, threads=threads, storage=kind, connectivity=degree, expansion_add=add)
            measure(path, kind, round(time.perf_counter() - started, 2), add)
            path.unlink()
    return report


def markdown(report: dict) -> str:
    lines = [f"# bench vectors: {report['model']}, {report['rows']:,} rows ({report['papers']:,} papers) x {report['dim']}",
             "", (f"`{report['folder']}` (stored as {report['stored_as']}; truth: exact search over its rows in float32), "
                  f"{report['queries']} queries, recall@{report['k']} over papers; {report['machine']}. "
                  f"Process RSS with the float32 rows loaded: {report['rss_mb_with_vectors']} MB."),
             "", "## Exact search (numpy) per storage kind", "",
             "| storage | bytes | recall@20 | p50 ms | p99 ms |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {row['storage']} | {row['bytes']:,} | {row['recall']} | {row['p50_ms']} | {row['p99_ms']} |"
              for row in report["exact"]]
    lines += ["", "## HNSW (usearch)", "",
              "| storage | M | expansion_add | expansion_search | build s | index MB | recall@20 | p50 ms | p99 ms | RSS MB (view) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["hnsw"]:
        build = "built" if row["build_s"] is None else row["build_s"]
        lines.append(f"| {row['storage']} | {row['connectivity']} | {row['expansion_add'] or '—'} | {row['expansion_search']} | "
                     f"{build} | {row['index_bytes'] / 2**20:.1f} | {row['recall']} | {row['p50_ms']} | {row['p99_ms']} | "
                     f"{row['rss_mb']} ({row['view_rss_mb']:+}) |")
    return "\n".join(lines) + "\n"
