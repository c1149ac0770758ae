"""The vector index: paper vectors on disk, searched exactly (numpy, or faiss past a size).

Layout inside the data dir (one folder per model, generations swapped atomically like the
lexical index, so a reader never sees a half-written index):

    vectors/<model>/CURRENT        name of the live generation
    vectors/<model>/gen-<n>/       vectors.npy ([n, dim], float32 or float16: meta.json's
                                   `storage`, the model's setting when written), ids.json
                                   (paper id per row), meta.json, scan.faiss (only past
                                   SCAN_MIN_ROWS rows: the same rows in faiss's layout)

Every search is exact. Below SCAN_MIN_ROWS the rows are read into memory as float32 and a
query is one matrix-vector product (~4 ms at 61K x 384). Past it the rows stay on disk:
vectors.npy and scan.faiss (a faiss IndexScalarQuantizer over float16 rows, or IndexFlatIP
over float32 ones) are memory-mapped, and faiss scans every row with SIMD (16 ms at
1M x 256 float16, one thread), where numpy over a float16 memmap took 841 ms. An HNSW
index (usearch) was used here before: at 1M synthetic papers its recall@20 was 0.55 at its
search breadth and its build took 20 minutes; IVF did no better on the real e5 corpus
(docs/semantic.md, "Past 100,000 rows: an exact faiss scan, not HNSW"). A filter arrives as a
boolean row mask: a small allowed subset is gathered and searched by numpy, a large one is
scanned by faiss (oversampled without a filter first, else with the mask as its ID selector),
so filtering never loses recall.

A generation written before scan.faiss existed holds ann.usearch instead (and `ann` in its
meta): it is searched by numpy over the memmap until `papersift embed` adds its scan.faiss
(add_missing_scan), the one file ever added to a published generation: written beside it
under a temporary name, synced, then renamed into place, so a reader sees it whole or not.

Storage: a model's `vector_storage` setting (models/registry.py) says how its rows are
written; a generation written before the setting existed has no `storage` in its meta and
reads as float32, so old generations open without a migration.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from papersift.index.publish import (
    POINTER_FILE,
    PUBLISH_STEPS,
    fault_point,
    fsync_files,
    new_staging,
    publish,
    remove_debris,
    writer_lock,
)

VECTORS_DIR = "vectors"
SCAN_FILE = "scan.faiss"
# Storage kinds: numpy dtype of vectors.npy (and of scan.faiss's rows). int8 was measured and
# left out: recall@20 against exact float32 0.984 (e5) / 0.985 (static), below 0.99.
STORAGE_KINDS = {"f32": np.float32, "f16": np.float16}
STORAGE_ENV = "PAPERSIFT_VECTOR_STORAGE"  # overrides the models' setting (e.g. f32 to measure against)
DEFAULT_STORAGE = "f32"  # models without a setting (the term bridge, phrase vectors) and old generations
EXACT_BLOCK_ROWS = 65_536  # rows widened to float32 at a time (a numpy search over a float16 memmap, faiss adds)
# Where the publish-fault tests kill a writer (publish.fault_point), in order.
FAULT_STEPS = ("vectors:vectors-written", "vectors:ids-written", "vectors:meta-written", *PUBLISH_STEPS)
SCAN_MIN_ROWS = 100_000  # rows (passages) from which a generation stays on disk and faiss scans it;
# below, the float32 rows in memory are as fast (~4 ms at 61K x 384) and a server holds 94 MB.
EXACT_SUBSET_ROWS = 20_000  # a filtered subset up to this size is gathered and searched by numpy
# A filter allowing at least this share of the rows is first tried without faiss's selector,
# asking for the rows the share needs times SCAN_OVERSAMPLE, plus SCAN_OVERSAMPLE_ROWS (a
# small k's allowed count varies most); see scan_search. Disallowed rows crowd the top: at 1M
# hybrid's mask allowed 85.5% of the rows but only 36-99% of each query's best 100, so at
# 1.25x most searches fell back to the selector; at 4x none of 12 did, and asking faiss for
# 1,000 rows instead of 200 costs ~1 ms.
SCAN_SELECT_SHARE = 0.25
SCAN_OVERSAMPLE = 4.0
SCAN_OVERSAMPLE_ROWS = 32
SCAN_EXTRA_ROWS = 16  # asked of faiss beyond k, so that ties at its cut are settled by row (_scan_rows)
OPEN_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class VectorMeta:
    model: str
    dim: int
    rows: int
    papers_total: int  # papers in the store when written: coverage = rows / papers_total
    last_seq: int
    written_at: float
    scan: bool  # past SCAN_MIN_ROWS when written: memory-mapped, with scan.faiss (`ann` before faiss)
    papers: int = -1  # distinct papers (a long paper has a row per chunk); -1: written before chunks
    storage: str = DEFAULT_STORAGE  # STORAGE_KINDS; absent in generations written before it: float32

    @classmethod
    def from_json(cls, payload: bytes) -> VectorMeta:
        """A meta.json; one written with an HNSW index says `ann` for `scan`."""
        values = orjson.loads(payload)
        if "ann" in values:
            values["scan"] = values.pop("ann")
        return cls(**{name: values[name] for name in (field.name for field in fields(cls)) if name in values})

    @property
    def coverage(self) -> float:
        papers = self.papers if self.papers >= 0 else self.rows
        return papers / self.papers_total if self.papers_total else 1.0


def model_root(data_dir: str | os.PathLike, model: str) -> Path:
    return Path(data_dir) / VECTORS_DIR / model


def current_generation(data_dir: str | os.PathLike, model: str) -> Path | None:
    root = model_root(data_dir, model)
    try:
        folder = root / (root / POINTER_FILE).read_text().strip()
    except FileNotFoundError:
        return None
    return folder if folder.is_dir() else None


def read_meta(folder: Path) -> VectorMeta | None:
    """A generation's meta.json (None when missing or unreadable), without loading its vectors."""
    try:
        return VectorMeta.from_json((folder / "meta.json").read_bytes())
    except (OSError, ValueError, TypeError, KeyError):
        return None


def storage_for(model: str) -> str:
    """The storage kind of a model's vectors: $PAPERSIFT_VECTOR_STORAGE when set, else its
    registry setting; float32 for other indexes (a model name with a suffix,
    "multilingual-e5-small@terms", is a derived index)."""
    from papersift.models.registry import MODELS

    spec = MODELS.get(model)
    if spec is None:
        return DEFAULT_STORAGE
    return check_storage(os.environ.get(STORAGE_ENV) or spec.vector_storage)


def check_storage(storage: str) -> str:
    if storage not in STORAGE_KINDS:
        raise ValueError(f"unknown vector storage {storage!r}: one of {', '.join(STORAGE_KINDS)}")
    return storage


def build_scan(vectors: np.ndarray, path: Path | None, storage: str = DEFAULT_STORAGE):
    """A faiss index that scans every row by inner product (cosine on unit rows), its rows kept
    in `storage`'s kind: float16 as IndexScalarQuantizer QT_fp16 (decoded to float32 in SIMD
    registers), float32 as IndexFlatIP. Row number = faiss id. Saved to `path` unless None.
    No training and no graph: adding 1M x 256 rows takes ~10 s."""
    import faiss

    dim = int(vectors.shape[1])
    index: Any
    if check_storage(storage) == "f16":
        index = faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexFlatIP(dim)
    add_rows(index, vectors)
    if path is not None:
        faiss.write_index(index, str(path))
    return index


def add_rows(index, vectors: np.ndarray) -> None:
    """Add every row to a faiss index in float32 blocks (a float16 memmap is widened piecewise)."""
    for start in range(0, len(vectors), EXACT_BLOCK_ROWS):
        index.add(np.ascontiguousarray(vectors[start:start + EXACT_BLOCK_ROWS], dtype=np.float32))


def products_on_one_thread() -> bool:
    """numpy's BLAS (OpenBLAS) on the calling thread only, for the rest of the process (a server's:
    api/warmup.py). A query's product with every row is bound by memory, not by cores, and
    OpenBLAS's helper threads spin after each product, taking the second core of a 2-core machine
    from the query encoder and the reading of the next request: with its 2 threads a known-item zh
    hybrid page cost ~30 ms more process CPU fresh and ~13 ms more remembered (rankings the same;
    docs/semantic.md, "Chinese hybrid pages: what waits on what"). False when threadpoolctl is
    not installed (nothing changed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with papersift[semantic]
        return False
    threadpool_limits(limits=1, user_api="blas")
    return True


def row_scores(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Inner product of the query with every row (float32; a float16 matrix or memmap block by
    block, so no float32 copy of the whole matrix is ever made)."""
    if vectors.dtype == np.float32:
        return vectors @ query
    scores = np.empty(len(vectors), dtype=np.float32)
    for start in range(0, len(vectors), EXACT_BLOCK_ROWS):
        block = vectors[start:start + EXACT_BLOCK_ROWS]
        scores[start:start + len(block)] = block.astype(np.float32) @ query
    return scores


def open_scan(path: Path):
    """A saved scan index, memory-mapped in place (IO_FLAG_MMAP_IFC: zero-copy, read-only):
    opening costs no memory, and the rows it reads are page cache the kernel can drop.

    Searches run on one OpenMP thread (scan_search)."""
    import faiss

    return faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)


def write_index(data_dir: str | os.PathLike, model: str, paper_ids: list[str], vectors: np.ndarray | Path,
                papers_total: int, last_seq: int, scan_min_rows: int | None = None, storage: str | None = None) -> Path:
    """Write a new generation and make it live with one rename (index/publish.py); the one it
    replaces and what killed writers left are removed. One writer per model at a time.
    `vectors`: the rows, or a .npy file of them (in the storage's dtype, on the data dir's file
    system) that is moved into the generation, so a writer that streamed its rows to a file
    never holds them. `scan_min_rows`: SCAN_MIN_ROWS unless given; `storage`: STORAGE_KINDS, by
    default the model's setting (storage_for)."""
    moved: Path | None = None
    if isinstance(vectors, Path):
        moved, rows = vectors, np.load(vectors, mmap_mode="r")
    else:
        rows = vectors
    if len(paper_ids) != len(rows):
        raise ValueError(f"{len(paper_ids)} ids but {len(rows)} vectors")
    storage = check_storage(storage or storage_for(model))
    if moved is not None and rows.dtype != STORAGE_KINDS[storage]:
        raise ValueError(f"{moved}: {rows.dtype} rows, the {storage} storage needs {STORAGE_KINDS[storage]}")
    scan_min_rows = SCAN_MIN_ROWS if scan_min_rows is None else scan_min_rows
    root = model_root(data_dir, model)
    with writer_lock(root):
        remove_debris(root)
        name, staging = new_staging(root)
        try:
            if moved is not None:
                os.replace(moved, staging / "vectors.npy")
            else:
                np.save(staging / "vectors.npy", np.ascontiguousarray(rows, dtype=STORAGE_KINDS[storage]))
            fault_point("vectors:vectors-written")
            (staging / "ids.json").write_bytes(orjson.dumps(list(paper_ids)))
            fault_point("vectors:ids-written")
            scan = len(paper_ids) >= scan_min_rows
            if scan:
                build_scan(rows, staging / SCAN_FILE, storage=storage)
            meta = VectorMeta(model, int(rows.shape[1]) if rows.ndim == 2 else 0, len(paper_ids),
                              papers_total, last_seq, time.time(), scan, papers=len(set(paper_ids)), storage=storage)
            (staging / "meta.json").write_bytes(orjson.dumps(asdict(meta)))
            fsync_files(*(path for path in staging.iterdir() if path.is_file()))
            fault_point("vectors:meta-written")
            return publish(root, staging, name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def add_missing_scan(data_dir: str | os.PathLike, model: str) -> Path | None:
    """Give the live generation its scan.faiss when it is past the scan size and has none (one
    written with an HNSW index before faiss); the path written, else None. A command's work
    (`papersift embed`): serving never writes derived files. The file is built under a
    temporary name in the generation's folder, synced and renamed into place, so a reader sees
    it whole or not at all; what a killed run left is removed by the next one."""
    root = model_root(data_dir, model)
    if current_generation(data_dir, model) is None:
        return None
    with writer_lock(root):
        folder = current_generation(data_dir, model)
        meta = None if folder is None else read_meta(folder)
        if folder is None or meta is None or not meta.scan or (folder / SCAN_FILE).exists():
            return None
        for leftover in folder.glob(f".{SCAN_FILE}.*.tmp"):
            leftover.unlink()
        temporary = folder / f".{SCAN_FILE}.{os.getpid()}.tmp"
        try:
            build_scan(np.load(folder / "vectors.npy", mmap_mode="r"), temporary, storage=meta.storage)
            fsync_files(temporary)
            os.replace(temporary, folder / SCAN_FILE)
            fsync_files(folder)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return folder / SCAN_FILE


def scan_search(scan, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows, scores) of the k nearest allowed rows by a faiss scan index, best first, ties by
    lower row as numpy orders them (faiss's float32 sums of the float16 rows differ from
    numpy's only in summation order, ~1e-7: they are not recomputed, which cost ~40 ms for
    3,000 rows gathered from a 1M memmap).

    Filtered, the scan is exact either way: when most rows are allowed it first asks for the
    best rows of all, oversampled by the allowed share (the allowed ones among them are the
    best allowed rows when at least k are there), because faiss's ID selector scores the allowed
    rows one by one (1M x 256, 74% allowed, k 200: p50 58 ms with the selector, 25 ms this
    way); otherwise, or when too few came back, the mask goes to faiss as an IDSelectorBitmap
    and only allowed rows are scored (10% allowed: 25 ms)."""
    import faiss

    # One OpenMP thread (a setting of the calling thread: a server searches from several):
    # faiss parallelises a search over its queries and each search here is one query, so a
    # second thread only spins (1M x 256 under load: p50 44 ms with two threads, 26 ms with one).
    faiss.omp_set_num_threads(1)
    total = int(scan.ntotal)
    if allowed is None:
        return _scan_rows(scan, query, min(k, total), None)
    count = int(allowed.sum())
    if count >= SCAN_SELECT_SHARE * total:
        wanted = min(total, int((k * SCAN_OVERSAMPLE + SCAN_OVERSAMPLE_ROWS) * total / max(count, 1)))
        rows, scores = _scan_rows(scan, query, wanted, None)
        keep = allowed[rows]
        if keep.sum() >= min(k, count):
            return rows[keep][:k], scores[keep][:k]
    # bitmap and selector stay referenced here until the search returns (faiss keeps pointers)
    bitmap = np.packbits(allowed, bitorder="little")
    selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap))
    params = faiss.SearchParameters()
    params.sel = selector
    return _scan_rows(scan, query, min(k, count), params)


def _scan_rows(scan, query: np.ndarray, k: int, params) -> tuple[np.ndarray, np.ndarray]:
    """faiss's k best, ties by lower row: it is asked for SCAN_EXTRA_ROWS more, because among
    rows tied at its cut it does not always keep the first ones (with a selector)."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    distances, found = scan.search(query[None, :], min(int(scan.ntotal), k + SCAN_EXTRA_ROWS), params=params)
    rows, scores = found[0], distances[0]
    real = rows >= 0  # -1: fewer rows than asked for
    rows, scores = rows[real], scores[real]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, best first (ties: lower index first, also at the cut:
    argpartition alone keeps an arbitrary few of the rows tied with the k-th, and a corpus
    with identical vectors has such ties; every row reaching the k-th score is a candidate)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(scores):
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(len(scores))
    return candidates[np.lexsort((candidates, -scores[candidates]))][:k]


class VectorIndex:
    """A read-only view of one generation: rows in memory, or memory-mapped with a faiss scan."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.meta = VectorMeta.from_json((folder / "meta.json").read_bytes())
        # Below the scan size the matrix is read into memory as float32 (94 MB for the 61K e5 rows
        # of 44K papers): numpy's product over a read-only memmap was measured ~30x slower than
        # over an array. Larger indexes stay memory-mapped (float16 rows are widened where read)
        # and are scanned by faiss.
        stored = np.load(folder / "vectors.npy", mmap_mode=None if not self.meta.scan else "r")
        self.vectors = stored if self.meta.scan or stored.dtype == np.float32 else stored.astype(np.float32)
        self.paper_ids: list[str] = orjson.loads((folder / "ids.json").read_bytes())
        # A paper longer than the model reads has a row per chunk, its first chunk first:
        # row_of gives that first row (the paper's own vector, for "similar papers").
        self.row_of: dict[str, int] = {}
        for row, paper_id in enumerate(self.paper_ids):
            self.row_of.setdefault(paper_id, row)
        self.rows_per_paper = max(Counter(self.paper_ids).values(), default=1)
        self._first_row_of_rows: np.ndarray | None = None
        self._scan: Any = None  # faiss's index (untyped), opened on first use

    @classmethod
    def open(cls, data_dir: str | os.PathLike, model: str) -> VectorIndex | None:
        """The live generation (None when there is none); retries when a writer swapped it away
        (and removed it) while it was being opened."""
        for _ in range(OPEN_ATTEMPTS):
            folder = current_generation(data_dir, model)
            if folder is None:
                return None
            try:
                return cls(folder)
            except FileNotFoundError:
                if current_generation(data_dir, model) == folder:
                    raise
        raise FileNotFoundError(f"the {model} vector index in {data_dir} kept changing while it was opened")

    def __len__(self) -> int:
        return len(self.paper_ids)

    @property
    def scan(self):
        """The faiss scan index (None below the scan size, or for a generation written before it)."""
        if self._scan is None and self.meta.scan and (self.folder / SCAN_FILE).exists():
            self._scan = open_scan(self.folder / SCAN_FILE)
        return self._scan

    def vector_of(self, paper_id: str) -> np.ndarray | None:
        row = self.row_of.get(paper_id)
        return None if row is None else np.asarray(self.vectors[row], dtype=np.float32)

    def mask_for_ids(self, paper_ids) -> np.ndarray:
        """Rows (every chunk) of these papers."""
        rows = [self.row_of[i] for i in paper_ids if i in self.row_of]
        if self.rows_per_paper > 1:
            if self._first_row_of_rows is None:
                self._first_row_of_rows = np.array([self.row_of[i] for i in self.paper_ids], dtype=np.int64)
            return np.isin(self._first_row_of_rows, rows)
        mask = np.zeros(len(self), dtype=bool)
        mask[rows] = True
        return mask

    def first_rows(self) -> np.ndarray:
        """One row per paper (its first chunk), in row order."""
        return np.array(sorted(self.row_of.values()), dtype=np.int64)

    def all_scores(self, query: np.ndarray) -> np.ndarray:
        """Inner product of the query with every row (row_scores)."""
        return row_scores(self.vectors, query)

    def search_numpy(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k nearest allowed rows by inner product, computed by numpy."""
        if allowed is None:
            scores = self.all_scores(query)
            rows = top_k(scores, k)
            return rows, scores[rows]
        subset = np.flatnonzero(allowed)
        if 4 * len(subset) >= len(self):
            # Most rows allowed (e.g. all but the title-only papers): one product over the whole
            # matrix, then pick the allowed scores. Gathering the allowed rows first copies them
            # (52 MB for 34K x 384) and measured ~7x slower than the product itself.
            scores = self.all_scores(query)[subset]
        else:
            scores = np.asarray(self.vectors[subset], dtype=np.float32) @ query
        best = top_k(scores, k)
        return subset[best], scores[best]

    def search_scan(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k nearest allowed rows, scanned by faiss."""
        return scan_search(self.scan, query, k, allowed)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None,
               scan: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest (allowed) rows, best first: faiss's scan past the scan size unless a small
        allowed subset is cheaper to gather, else numpy. `scan=False`: numpy whatever the size
        (the benches' reference)."""
        query = np.asarray(query, dtype=np.float32)
        if len(self) == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if allowed is not None:
            allowed_count = int(allowed.sum())
            if allowed_count <= EXACT_SUBSET_ROWS or allowed_count <= k:
                return self.search_numpy(query, k, allowed)
        if not scan or self.scan is None:
            return self.search_numpy(query, k, allowed)
        return self.search_scan(query, k, allowed)

    def search_ids(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None,
                   scan: bool = True) -> list[tuple[str, float]]:
        """The k best papers, each scored by its best chunk."""
        rows, scores = self.search(query, k * self.rows_per_paper, allowed, scan)
        best: dict[str, float] = {}
        for row, score in zip(rows, scores):
            best.setdefault(self.paper_ids[row], float(score))
            if len(best) == k:
                break
        return list(best.items())
