"""Vector search benchmark (issue 20, "vectors that fit at 1M").

On one vectors generation of a data dir, against exact float32 search over its rows (the
truth; a generation stored as float16 is widened, and the report says so), each way of
searching the same rows:
- numpy, float32 rows in memory (the truth itself; how a generation below the scan size is
  searched);
- numpy over the memory-mapped file (float16 rows widened block by block): how a generation
  past the scan size without its scan.faiss (one written with HNSW before faiss) is searched;
- numpy over int8 rows (centred, one scale per dimension: the best int8 form measured; not a
  storage kind, `int8=False` skips it);
- the faiss scan (index/vectors.py: the generation's own scan.faiss, else one built here),
  through the product's search path (faiss's own scores, ties settled by row);
- optionally faiss IVF (IndexIVFScalarQuantizer, float16) per nlist, searched at every
  nprobe: the approximate alternative measured against the scan.
Per search: recall@20 over papers (a paper scores by its best passage), tie-aware recall@20
(a found paper counts when its exact score reaches the 20th exact paper's: a corpus with
identical vectors breaks ties in any order), p50 / p99 of the search alone (queries are
embedded once beforehand), build seconds, file bytes and the process RSS after its queries.
Queries: bench semantic's (100 S2 queries + the known-item dev queries) embedded with the
generation's model.
"""

from __future__ import annotations

import gc
import os
import platform
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from papersift.bench.lexical import rss_mb
from papersift.bench.semantic import latency_summary
from papersift.index import vectors as vector_store

TOP_K = 20
IVF_TRAIN_PER_LIST = 64  # training rows per IVF list (faiss warns below 39)
IVF_NPROBE = (16, 64, 256, 1024)
TIE_TOLERANCE = 1e-5  # float32 products of the same rows summed in another order


def process_rss_mb() -> float:
    """Resident set size of this process now (not the peak), MB."""
    return round(rss_mb(), 1)


def paper_rows(rows: Sequence[int] | np.ndarray, row_papers: np.ndarray, k: int) -> list[int]:
    """The first row of each of the first k distinct papers among rows ranked best first (a
    paper scores by its best row)."""
    seen: dict[int, int] = {}
    for row in rows:
        seen.setdefault(int(row_papers[row]), int(row))
        if len(seen) == k:
            break
    return list(seen.values())


def recall(found: Sequence[Sequence[int]], truth: Sequence[Sequence[int]], row_papers: np.ndarray) -> float:
    """Share of the true papers found (found and truth: rows, one per paper)."""
    return round(float(np.mean([len(set(row_papers[list(f)].tolist()) & set(row_papers[list(t)].tolist()))
                                / max(len(t), 1) for f, t in zip(found, truth)])), 4)


def tie_aware_recall(found: Sequence[Sequence[int]], truth: Sequence[Sequence[int]], matrix: np.ndarray,
                     queries: np.ndarray) -> float:
    """Share of found papers whose row scores at least the last true paper's (exact float32)."""
    shares = []
    for f, t, query in zip(found, truth, queries):
        if not len(t):
            continue
        cut = float(matrix[t[-1]] @ query) - TIE_TOLERANCE
        scores = matrix[list(f)] @ query if len(f) else np.zeros(0)
        shares.append(min(int((scores >= cut).sum()), len(t)) / len(t))
    return round(float(np.mean(shares)), 4) if shares else 1.0


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
        found.append(paper_rows(rows, row_papers, k))
    return found, latency_summary(seconds)


def memmap_rows(rows: np.ndarray, depth: int) -> Callable[[np.ndarray], np.ndarray]:
    """numpy over a memory-mapped matrix, widened to float32 block by block (as VectorIndex.all_scores)."""
    return lambda query: vector_store.top_k(vector_store.row_scores(rows, query), depth)


def scan_rows(scan, depth: int) -> Callable[[np.ndarray], np.ndarray]:
    """The product's faiss scan (vectors.scan_search)."""
    return lambda query: vector_store.scan_search(scan, query, depth)[0]


def faiss_rows(index, depth: int) -> Callable[[np.ndarray], np.ndarray]:
    """A faiss index's own ranking (-1: fewer rows than asked for)."""
    def search(query: np.ndarray) -> np.ndarray:
        found = index.search(query[None, :], depth)[1][0]
        return found[found >= 0]
    return search


def build_ivf(rows: np.ndarray, nlist: int, path: Path, threads: int):
    """faiss IVF over float16 rows (inner product), trained on IVF_TRAIN_PER_LIST rows per list."""
    import faiss

    faiss.omp_set_num_threads(threads or os.cpu_count() or 1)  # scan_search sets one
    dim = int(rows.shape[1])
    index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, nlist, faiss.ScalarQuantizer.QT_fp16,
                                          faiss.METRIC_INNER_PRODUCT)
    sample = np.random.default_rng(0).choice(len(rows), min(len(rows), nlist * IVF_TRAIN_PER_LIST), replace=False)
    index.train(np.asarray(rows[np.sort(sample)], dtype=np.float32))
    vector_store.add_rows(index, rows)
    faiss.write_index(index, str(path))
    return index


def run(index: vector_store.VectorIndex, queries: np.ndarray, nlist: Sequence[int] = (),
        nprobe: Sequence[int] = IVF_NPROBE, int8: bool = True, threads: int = 0,
        log: Callable[[str], None] = lambda _: None) -> dict:
    """Every search over one generation's rows; `queries` are unit query vectors of its model."""
    row_papers = np.unique(np.asarray(index.paper_ids), return_inverse=True)[1]
    depth = TOP_K * index.rows_per_paper
    on_disk = np.load(index.folder / "vectors.npy", mmap_mode="r")
    # The truth: float32 rows in memory whatever the file holds (the index's own below the scan
    # size; past it, read once: np.asarray of a float32 file would be the memmap itself).
    matrix = np.array(on_disk, dtype=np.float32) if isinstance(index.vectors, np.memmap) else index.vectors
    queries = np.asarray(queries, dtype=np.float32)
    report: dict = {"folder": str(index.folder), "model": index.meta.model, "rows": len(index),
                    "papers": int(row_papers.max()) + 1 if len(row_papers) else 0, "dim": int(matrix.shape[1]),
                    "stored_as": index.meta.storage, "queries": len(queries), "k": TOP_K,
                    "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                    "rss_mb_with_vectors": process_rss_mb(), "searches": []}
    truth: list[list[int]] = []

    def measure(name: str, search: Callable[[np.ndarray], np.ndarray], build_s: float | None, file_bytes: int,
                **settings) -> None:
        gc.collect()
        before = process_rss_mb()
        found, latency = timed_search(queries, search, row_papers, TOP_K)
        if not truth:
            truth.extend(found)
        row = {"search": name, **settings, "build_s": build_s, "bytes": file_bytes,
               "recall": recall(found, truth, row_papers), "tie_recall": tie_aware_recall(found, truth, matrix, queries),
               **latency, "rss_mb": process_rss_mb(), "rss_delta_mb": round(process_rss_mb() - before, 1)}
        report["searches"].append(row)
        log(f"{name} {settings or ''}: recall@{TOP_K} {row['recall']} (tie-aware {row['tie_recall']}) "
            f"p50 {row['p50_ms']} ms p99 {row['p99_ms']} ms build {build_s} s")

    measure("numpy f32 in memory", lambda query: vector_store.top_k(matrix @ query, depth), None, matrix.nbytes)
    measure(f"numpy {index.meta.storage} memmap", memmap_rows(on_disk, depth), None, on_disk.nbytes)
    if int8:
        rows8, mean, scale = int8_rows(matrix)
        measure("numpy i8 in memory", lambda query: vector_store.top_k(rows8 @ (query / scale) + float(query @ mean), depth),
                None, rows8.nbytes)
        del rows8
    with tempfile.TemporaryDirectory(prefix="papersift-bench-vectors-") as scratch:
        own = index.folder / vector_store.SCAN_FILE
        path, build_s = own, None
        if not (index.meta.scan and own.exists()):
            path = Path(scratch) / vector_store.SCAN_FILE
            started = time.perf_counter()
            vector_store.build_scan(on_disk, path, storage=index.meta.storage)
            build_s = round(time.perf_counter() - started, 2)
        measure(f"faiss scan {index.meta.storage}" + (" (its scan.faiss)" if build_s is None else ""),
                scan_rows(vector_store.open_scan(path), depth), build_s, path.stat().st_size)
        for lists in nlist:
            path = Path(scratch) / f"ivf-{lists}.faiss"
            started = time.perf_counter()
            ivf = build_ivf(on_disk, lists, path, threads)
            build_s = round(time.perf_counter() - started, 2)
            for probes in nprobe:
                ivf.nprobe = probes
                measure("faiss IVF f16", faiss_rows(ivf, depth), build_s, path.stat().st_size, nlist=lists, nprobe=probes)
            path.unlink()
    return report


def markdown(report: dict) -> str:
    lines = [f"# bench vectors: {report['model']}, {report['rows']:,} rows ({report['papers']:,} papers) x {report['dim']}",
             "", (f"`{report['folder']}` (stored as {report['stored_as']}; truth: exact search over its rows in float32), "
                  f"{report['queries']} queries, recall@{report['k']} over papers (tie-aware: a found paper scoring at "
                  f"least the {report['k']}th true one counts); {report['machine']}. "
                  f"Process RSS with the float32 rows loaded: {report['rss_mb_with_vectors']} MB."),
             "", "| search | nlist | nprobe | build s | MB | recall@20 | tie-aware | p50 ms | p99 ms | RSS MB (change) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["searches"]:
        build = "—" if row["build_s"] is None else row["build_s"]
        lines.append(f"| {row['search']} | {row.get('nlist', '—')} | {row.get('nprobe', '—')} | {build} | "
                     f"{row['bytes'] / 2**20:.1f} | {row['recall']} | {row['tie_recall']} | {row['p50_ms']} | "
                     f"{row['p99_ms']} | {row['rss_mb']} ({row['rss_delta_mb']:+}) |")
    return "\n".join(lines) + "\n"
