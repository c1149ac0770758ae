"""The vector index: paper vectors on disk, searched exactly (numpy) or by usearch HNSW.

Layout inside the data dir (one folder per model, generations swapped atomically like the
lexical index, so a reader never sees a half-written index):

    vectors/<model>/CURRENT        name of the live generation
    vectors/<model>/gen-<n>/       vectors.npy ([n, dim], float32 or float16: meta.json's
                                   `storage`, the model's setting when written), ids.json
                                   (paper id per row), meta.json, ann.usearch (only past
                                   ANN_MIN_ROWS rows; same storage kind)

Exact search is a matrix-vector product; below ANN_MIN_ROWS it is as fast as HNSW and
has perfect recall. Filters arrive as a boolean row mask: a small allowed subset is
searched exactly; a large one goes through the ANN index with oversampling, and falls back
to exact search when too few allowed rows come back, so filtering never loses recall.

Storage: a model's `vector_storage` setting (models/registry.py) says how its rows are
written; a generation written before the setting existed has no `storage` in its meta and
reads as float32, so old generations open without a migration. Below ANN_MIN_ROWS the rows are
read into memory as float32 whatever the file holds; above, the file is memory-mapped and
float16 rows are widened block by block when an exact search needs them.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass
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
# Storage kinds: numpy dtype of vectors.npy and usearch's scalar kind of ann.usearch. int8 was
# measured and left out: recall@20 against exact float32 0.984 (e5) / 0.985 (static), below 0.99.
STORAGE_KINDS = {"f32": np.float32, "f16": np.float16}
STORAGE_ENV = "PAPERSIFT_VECTOR_STORAGE"  # overrides the models' setting (e.g. f32 to measure against)
ANN_SCALAR_KINDS = ("f32", "f16", "i8")  # what build_ann accepts (bench vectors measures int8 too)
DEFAULT_STORAGE = "f32"  # models without a setting (the term bridge, phrase vectors) and old generations
EXACT_BLOCK_ROWS = 65_536  # rows widened to float32 at a time by an exact search over a float16 memmap
# Where the publish-fault tests kill a writer (publish.fault_point), in order.
FAULT_STEPS = ("vectors:vectors-written", "vectors:ids-written", "vectors:meta-written", *PUBLISH_STEPS)
ANN_MIN_ROWS = 100_000  # rows (passages); measured: exact search over 61K x 384 (44,693 papers, 2 passages
# for the long ones) takes ~4 ms with top-k, and HNSW is no faster at this size (see bench semantic)
EXACT_SUBSET_ROWS = 20_000  # a filtered subset up to this size is searched exactly
ANN_OVERSAMPLE = 4
OPEN_ATTEMPTS = 3
# e5 vectors crowd into a narrow cone; at the default 64 HNSW's recall@20 against exact search
# was 0.76 on the 44,693-paper corpus (bench semantic), so search wider.
ANN_EXPANSION_SEARCH = 256
ANN_CONNECTIVITY = 16  # HNSW graph degree (usearch's default)
ANN_EXPANSION_ADD = 128


@dataclass(frozen=True, slots=True)
class VectorMeta:
    model: str
    dim: int
    rows: int
    papers_total: int  # papers in the store when written: coverage = rows / papers_total
    last_seq: int
    written_at: float
    ann: bool
    papers: int = -1  # distinct papers (a long paper has a row per chunk); -1: written before chunks
    storage: str = DEFAULT_STORAGE  # STORAGE_KINDS; absent in generations written before it: float32

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
        return VectorMeta(**orjson.loads((folder / "meta.json").read_bytes()))
    except (OSError, ValueError, TypeError):
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


def usearch_index_class():
    """usearch's Index class, imported after onnxruntime.

    Measured with usearch 2.26.6 and onnxruntime 1.32.0: importing onnxruntime after usearch
    crashes the process (segmentation fault), the other order works. A server past
    ANN_MIN_ROWS opens the HNSW index before the query encoder loads, so the order is fixed here.
    """
    import onnxruntime  # noqa: F401 - must be loaded before usearch
    from usearch.index import Index

    return Index


def build_ann(vectors: np.ndarray, path: Path | None, threads: int = 0, storage: str = DEFAULT_STORAGE,
              connectivity: int = ANN_CONNECTIVITY, expansion_add: int = ANN_EXPANSION_ADD,
              expansion_search: int = ANN_EXPANSION_SEARCH):
    """An HNSW index (cosine on unit vectors, inner product) keyed by row number, its vectors
    kept in `storage`'s scalar kind (usearch converts); saved to `path` unless None."""
    index_class = usearch_index_class()
    if storage not in ANN_SCALAR_KINDS:
        raise ValueError(f"unknown HNSW scalar kind {storage!r}: one of {', '.join(ANN_SCALAR_KINDS)}")
    index = index_class(ndim=vectors.shape[1], metric="ip", dtype=storage, connectivity=connectivity,
                        expansion_add=expansion_add, expansion_search=expansion_search)
    for start in range(0, len(vectors), EXACT_BLOCK_ROWS):  # float32 blocks: a float16 memmap is widened piecewise
        block = np.asarray(vectors[start:start + EXACT_BLOCK_ROWS], dtype=np.float32)
        index.add(np.arange(start, start + len(block), dtype=np.uint64), block, threads=threads)
    if path is not None:
        index.save(str(path))
    return index


def write_index(data_dir: str | os.PathLike, model: str, paper_ids: list[str], vectors: np.ndarray,
                papers_total: int, last_seq: int, ann_min_rows: int = ANN_MIN_ROWS, storage: str | None = None) -> Path:
    """Write a new generation and make it live with one rename (index/publish.py); the one it
    replaces and what killed writers left are removed. One writer per model at a time.
    `storage`: STORAGE_KINDS, by default the model's setting (storage_for)."""
    if len(paper_ids) != len(vectors):
        raise ValueError(f"{len(paper_ids)} ids but {len(vectors)} vectors")
    storage = check_storage(storage or storage_for(model))
    root = model_root(data_dir, model)
    with writer_lock(root):
        remove_debris(root)
        name, staging = new_staging(root)
        try:
            np.save(staging / "vectors.npy", np.ascontiguousarray(vectors, dtype=STORAGE_KINDS[storage]))
            fault_point("vectors:vectors-written")
            (staging / "ids.json").write_bytes(orjson.dumps(list(paper_ids)))
            fault_point("vectors:ids-written")
            ann = len(paper_ids) >= ann_min_rows
            if ann:
                build_ann(vectors, staging / "ann.usearch", storage=storage)
            meta = VectorMeta(model, int(vectors.shape[1]) if vectors.ndim == 2 else 0, len(paper_ids),
                              papers_total, last_seq, time.time(), ann, papers=len(set(paper_ids)), storage=storage)
            (staging / "meta.json").write_bytes(orjson.dumps(asdict(meta)))
            fsync_files(*(path for path in staging.iterdir() if path.is_file()))
            fault_point("vectors:meta-written")
            return publish(root, staging, name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, best first (ties: lower index first)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(scores):
        candidates = np.argpartition(-scores, k - 1)[:k]
    else:
        candidates = np.arange(len(scores))
    return candidates[np.lexsort((candidates, -scores[candidates]))]


class VectorIndex:
    """A read-only view of one generation: vectors memory-mapped, ANN index viewed from disk."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.meta = VectorMeta(**orjson.loads((folder / "meta.json").read_bytes()))
        # Below the ANN size the matrix is read into memory as float32 (94 MB for the 61K e5 rows
        # of 44K papers): numpy's product over a read-only memmap was measured ~30x slower than
        # over an array. Larger indexes stay memory-mapped (float16 rows are widened where read)
        # and are searched through the HNSW view.
        stored = np.load(folder / "vectors.npy", mmap_mode=None if not self.meta.ann else "r")
        self.vectors = stored if self.meta.ann or stored.dtype == np.float32 else stored.astype(np.float32)
        self.paper_ids: list[str] = orjson.loads((folder / "ids.json").read_bytes())
        # A paper longer than the model reads has a row per chunk, its first chunk first:
        # row_of gives that first row (the paper's own vector, for "similar papers").
        self.row_of: dict[str, int] = {}
        for row, paper_id in enumerate(self.paper_ids):
            self.row_of.setdefault(paper_id, row)
        self.rows_per_paper = max(Counter(self.paper_ids).values(), default=1)
        self._first_row_of_rows: np.ndarray | None = None
        self._ann: Any = None  # usearch's Index (untyped), opened on first use

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
    def ann(self):
        if self._ann is None and self.meta.ann and (self.folder / "ann.usearch").exists():
            self._ann = usearch_index_class().restore(str(self.folder / "ann.usearch"), view=True)
            self._ann.expansion_search = ANN_EXPANSION_SEARCH  # a query-time setting, not saved
        return self._ann

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
        """Inner product of the query with every row (float32; a float16 memmap block by block,
        so no float32 copy of the whole matrix is ever made)."""
        if self.vectors.dtype == np.float32:
            return self.vectors @ query
        scores = np.empty(len(self.vectors), dtype=np.float32)
        for start in range(0, len(self.vectors), EXACT_BLOCK_ROWS):
            block = self.vectors[start:start + EXACT_BLOCK_ROWS]
            scores[start:start + len(block)] = block.astype(np.float32) @ query
        return scores

    def search_exact(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k nearest allowed rows by inner product."""
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

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None,
               exact: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Nearest rows; exact below the ANN size or for small filtered subsets, else HNSW."""
        query = np.asarray(query, dtype=np.float32)
        if len(self) == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        allowed_count = len(self) if allowed is None else int(allowed.sum())
        use_ann = self.ann is not None if exact is None else not exact
        if not use_ann or allowed_count <= EXACT_SUBSET_ROWS or allowed_count <= k:
            return self.search_exact(query, k, allowed)
        fraction = allowed_count / len(self)
        wanted = min(len(self), int(k * ANN_OVERSAMPLE / fraction) + k)
        matches = self.ann.search(query, wanted)
        rows = np.asarray(matches.keys, dtype=np.int64)
        scores = 1.0 - np.asarray(matches.distances, dtype=np.float32)  # usearch ip distance = 1 - dot
        if self.vectors.dtype != np.float32:  # the index's float16 dot products, recomputed in float32
            scores = np.asarray(self.vectors[rows], dtype=np.float32) @ query
            order = np.lexsort((rows, -scores))
            rows, scores = rows[order], scores[order]
        if allowed is not None:
            keep = allowed[rows]
            rows, scores = rows[keep], scores[keep]
            if len(rows) < k:
                return self.search_exact(query, k, allowed)
        return rows[:k], scores[:k]

    def search_ids(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None,
                   exact: bool | None = None) -> list[tuple[str, float]]:
        """The k best papers, each scored by its best chunk."""
        rows, scores = self.search(query, k * self.rows_per_paper, allowed, exact)
        best: dict[str, float] = {}
        for row, score in zip(rows, scores):
            best.setdefault(self.paper_ids[row], float(score))
            if len(best) == k:
                break
        return list(best.items())
