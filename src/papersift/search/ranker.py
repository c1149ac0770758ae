"""The learned ranker (issue 31): a LightGBM lambdarank model over search/rank_features.py,
re-ordering the head of the hybrid fusion when `papersift rank train` has written a model for
this data dir.

The model lives in `D/ranker/` (`model.txt`, LightGBM's text format, and `ranker.json`: the
feature set, the corpus it was trained on and its held-back figures). A model is used only when
it is `active` (`papersift rank train --activate`; by default the command writes it inactive,
as the measured model does not beat the fusion: docs/experiments/2026-12-01-learned-ranker.md), its feature
set is this code's (FEATURE_VERSION) and the index holds about the papers it was trained on
(within STALE_SHARE of their number: ranks, z-scores and document frequencies are relative to
the corpus, so a few added papers do not change what a feature means, a new corpus does).
Otherwise, or without lightgbm, the fusion's order stands: results are exactly today's.
Loading reads two small files; nothing here writes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import orjson

from papersift.search.query import ParsedQuery
from papersift.search.rank_features import FEATURE_VERSION, FEATURES, Signals, candidates, feature_matrix

RANKER_DIR = "ranker"
MODEL_FILE = "model.txt"
META_FILE = "ranker.json"
STALE_SHARE = 0.10  # a model is stale once the index's paper count differs by more than this


def model_paths(data_dir: str | Path) -> tuple[Path, Path]:
    folder = Path(data_dir) / RANKER_DIR
    return folder / MODEL_FILE, folder / META_FILE


def usable(meta: dict, documents: int) -> bool:
    """Whether a model described by `meta` may rank an index of `documents` papers."""
    trained_on = int(meta.get("papers", 0))
    return (bool(meta.get("active", True)) and meta.get("feature_version") == FEATURE_VERSION
            and list(meta.get("features", ())) == list(FEATURES) and trained_on > 0
            and abs(documents - trained_on) <= STALE_SHARE * trained_on)


def reordered(fused: Sequence[tuple[str, float]], ids: Sequence[str], scores: np.ndarray) -> list[tuple[str, float]]:
    """The candidates in the model's order (ties keep the fused order), then the rest of the
    fused list; scores stay decreasing (the candidates' are lifted above the rest's)."""
    order = sorted(range(len(ids)), key=lambda row: (-float(scores[row]), row))
    chosen = set(ids)
    rest = [(paper_id, score) for paper_id, score in fused if paper_id not in chosen]
    if not order:
        return list(fused)
    low = min(float(scores[row]) for row in order)
    base = (rest[0][1] if rest else 0.0) + 1.0
    return [(ids[row], base + float(scores[row]) - low) for row in order] + rest


class LearnedRanker:
    """The data dir's model, loaded on first use and again when its files change."""

    def __init__(self, data_dir: str | Path):
        self.model_path, self.meta_path = model_paths(data_dir)
        self._lock = threading.Lock()
        self._stamp: tuple[float, float] | None = None
        self._booster = None
        self._meta: dict = {}

    def _current(self):
        try:
            stamp = (os.stat(self.model_path).st_mtime, os.stat(self.meta_path).st_mtime)
        except OSError:
            return None, {}
        with self._lock:
            if stamp != self._stamp:
                self._booster, self._meta = _load(self.model_path, self.meta_path)
                self._stamp = stamp
            return self._booster, self._meta

    def active_for(self, backend):
        """The booster when a usable model is present for this index, else None."""
        booster, meta = self._current()
        if booster is None or getattr(backend, "term_doc_freq", None) is None:
            return None
        return booster if usable(meta, backend.document_count()) else None

    def rerank(self, signals: Signals, backend) -> list[tuple[str, float]]:
        """The fused list with its head in the model's order; the fused list itself when no
        usable model is present."""
        booster = self.active_for(backend)
        if booster is None or not signals.fused:
            return list(signals.fused)
        ids = candidates(signals)
        found = backend.search(ParsedQuery(), "relevance", 0, len(ids), with_facets=False, with_papers=True,
                               candidate_ids=ids)
        papers = {paper.id: paper for paper in found.papers}
        features = feature_matrix(signals, ids, papers, backend.term_doc_freq, backend.document_count())
        return reordered(signals.fused, ids, booster.predict(features, num_threads=1))


def _load(model_path: Path, meta_path: Path):
    try:
        meta = orjson.loads(meta_path.read_bytes())
    except (OSError, ValueError):
        return None, {}
    if not meta.get("active", True):  # `rank train` writes models inactive: no booster (nor lightgbm) on the query path
        return None, meta
    try:
        import lightgbm
    except ImportError:  # the rank extra is not installed: the fusion ranks
        return None, {}
    try:
        return lightgbm.Booster(model_file=str(model_path)), meta
    except (OSError, ValueError, lightgbm.basic.LightGBMError):
        return None, {}
