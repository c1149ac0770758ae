"""The feature matrices recommendations are learned over: the papers' e5 vectors (the vector
index `papersift embed` writes) beside tf-idf keyword features of title + abstract + authors
(arxiv-sanity's vectorizer settings).

The tf-idf matrix is a derived file that a command computes (`papersift library features`,
~40 s for 44,693 papers) and publishes like the other indexes (index/publish.py: staged,
synced, one rename):

    library-features/CURRENT      name of the live generation
    library-features/gen-<n>/     tfidf.npz (scipy CSR float32), ids.json, meta.json

Serving only reads it (and never builds it); papers added after the last build are not
recommended until the next run. `load_features` keeps the matrices of the live generations
in memory, keyed by their folders, so a page pays the load once (~0.3 s).
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from papersift.index.publish import POINTER_FILE, fsync_files, new_staging, publish, remove_debris, writer_lock
from papersift.index.vectors import VectorIndex, current_generation
from papersift.models import DEFAULT_MODEL
from papersift.store import Store

FEATURES_DIR = "library-features"
# arxiv-sanity-lite compute.py, its defaults (20,000 features, min_df 5, max_df 0.1).
TFIDF_SETTINGS = {"input": "content", "encoding": "utf-8", "decode_error": "replace", "strip_accents": "unicode",
                  "lowercase": True, "analyzer": "word", "stop_words": "english",
                  "token_pattern": r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b", "ngram_range": (1, 2), "max_features": 20000,
                  "norm": "l2", "use_idf": True, "smooth_idf": True, "sublinear_tf": True, "max_df": 0.1, "min_df": 5}


class FeaturesMissing(RuntimeError):
    """Neither tf-idf features nor vectors exist: the message names the commands that make them."""


def paper_text(title: str, abstract: str | None, authors) -> str:
    return " ".join([title, abstract or "", " ".join(authors)])


def tfidf_matrix(texts: list[str], settings: dict | None = None):
    """(CSR float32 matrix, fitted vectorizer); min_df is lowered for corpora too small for it."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    settings = {**TFIDF_SETTINGS, **(settings or {})}
    if len(texts) < 20 * settings["min_df"]:  # a test corpus: keep words that occur at all
        settings.update(min_df=1, max_df=1.0)
    vectorizer = TfidfVectorizer(**settings)
    return vectorizer.fit_transform(texts).astype(np.float32).tocsr(), vectorizer


def corpus_texts(store: Store) -> tuple[list[str], list[str], int]:
    """(paper ids, texts, last seq) of every stored paper, in seq order."""
    paper_ids, texts, last_seq = [], [], 0
    for seq, paper in store.iter_papers():
        paper_ids.append(paper.id)
        texts.append(paper_text(paper.title, paper.abstract, paper.authors))
        last_seq = seq
    return paper_ids, texts, last_seq


def features_root(data_dir: str | Path) -> Path:
    return Path(data_dir) / FEATURES_DIR


def build_features(data_dir: str | Path) -> dict:
    """Compute the tf-idf matrix of every stored paper and publish it; returns its meta."""
    from scipy import sparse

    store = Store(data_dir, readonly=True)
    started = time.perf_counter()
    paper_ids, texts, last_seq = corpus_texts(store)
    matrix, _vectorizer = tfidf_matrix(texts)
    root = features_root(data_dir)
    with writer_lock(root):
        remove_debris(root)
        name, staging = new_staging(root)
        try:
            sparse.save_npz(staging / "tfidf.npz", matrix, compressed=False)
            (staging / "ids.json").write_bytes(orjson.dumps(paper_ids))
            meta = {"papers": len(paper_ids), "features": int(matrix.shape[1]), "last_seq": last_seq,
                    "written_at": time.time(), "seconds": round(time.perf_counter() - started, 2)}
            (staging / "meta.json").write_bytes(orjson.dumps(meta))
            fsync_files(*(path for path in staging.iterdir() if path.is_file()))
            publish(root, staging, name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return meta


def live_features(data_dir: str | Path) -> Path | None:
    root = features_root(data_dir)
    try:
        folder = root / (root / POINTER_FILE).read_text().strip()
    except FileNotFoundError:
        return None
    return folder if folder.is_dir() else None


@dataclass
class Features:
    """Rows aligned with `paper_ids`: a tf-idf row and an e5 vector (zeros when the paper has none)."""

    paper_ids: list[str]
    row_of: dict[str, int]
    tfidf: Any  # scipy CSR [n, vocabulary], l2-normalized rows (None when not built)
    vectors: np.ndarray | None  # float32 [n, dim], unit rows or zeros
    has_vector: np.ndarray | None  # bool [n]
    source: str  # which files, for reports

    _training: object | None = None  # CSR [n, dim + vocabulary]: vectors beside tf-idf, made on first use

    def __len__(self) -> int:
        return len(self.paper_ids)

    def training_matrix(self, vector_weight: float = 1.0):
        """Both blocks side by side as one CSR matrix (built once, ~1 s and ~150 MB for 44,693
        papers), so a request's training rows are one row slice instead of a stack per request."""
        from scipy import sparse

        if self._training is None:
            blocks = []
            if self.vectors is not None:
                blocks.append(sparse.csr_matrix(self.vectors * np.float32(vector_weight)))
            if self.tfidf is not None:
                blocks.append(self.tfidf)
            self._training = sparse.hstack(blocks, format="csr", dtype=np.float32)
        return self._training

    def rows(self, paper_ids) -> np.ndarray:
        return np.array([self.row_of[paper_id] for paper_id in paper_ids if paper_id in self.row_of], dtype=np.int64)


def assemble(paper_ids: list[str], tfidf, vector_index: VectorIndex | None, source: str) -> Features:
    vectors = has_vector = None
    if vector_index is not None and len(vector_index):
        if not paper_ids:
            paper_ids = [vector_index.paper_ids[row] for row in vector_index.first_rows()]
        dim = vector_index.vectors.shape[1]
        vectors = np.zeros((len(paper_ids), dim), dtype=np.float32)
        has_vector = np.zeros(len(paper_ids), dtype=bool)
        source_rows = np.array([vector_index.row_of.get(paper_id, -1) for paper_id in paper_ids], dtype=np.int64)
        has_vector = source_rows >= 0
        vectors[has_vector] = np.asarray(vector_index.vectors[source_rows[has_vector]], dtype=np.float32)
    return Features(paper_ids, {paper_id: row for row, paper_id in enumerate(paper_ids)}, tfidf, vectors, has_vector,
                    source)


_cache: dict[tuple, Features] = {}
_cache_lock = threading.Lock()


def load_features(data_dir: str | Path, model: str = DEFAULT_MODEL, build_missing_tfidf: bool = False) -> Features:
    """The live tf-idf generation and the live vectors of `model`, aligned (cached while both
    stay live). With build_missing_tfidf (commands such as the benchmark, never serving), a
    missing tf-idf file is computed in memory instead (not written)."""
    from scipy import sparse

    tfidf_folder, vector_folder = live_features(data_dir), current_generation(data_dir, model)
    key = (str(Path(data_dir).resolve()), str(tfidf_folder), str(vector_folder), build_missing_tfidf)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        vector_index = VectorIndex(vector_folder) if vector_folder is not None else None
        if tfidf_folder is not None:
            paper_ids = orjson.loads((tfidf_folder / "ids.json").read_bytes())
            tfidf, source = sparse.load_npz(tfidf_folder / "tfidf.npz").tocsr(), f"tfidf {tfidf_folder.name}"
        elif build_missing_tfidf:
            paper_ids, texts, _ = corpus_texts(Store(data_dir, readonly=True))
            tfidf, source = tfidf_matrix(texts)[0], "tfidf computed in memory"
        else:
            paper_ids, tfidf, source = [], None, "no tfidf"
        if tfidf is None and vector_index is None:
            raise FeaturesMissing("recommendations need features: run 'papersift library features' "
                                  "(keywords) and 'papersift embed' (vectors) on this data dir")
        features = assemble(paper_ids, tfidf, vector_index,
                            f"{source}; vectors {vector_folder.name if vector_folder else 'none'}")
        _cache.clear()  # one data dir's live generations at a time: older ones are released
        _cache[key] = features
        return features
