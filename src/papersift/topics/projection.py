"""2-D coordinates of the paper embeddings for the topic map (PCA or UMAP), cached on disk.

The projection is computed from the published vector index and kept in
DATA_DIR/topics/map-<method>.npz, stamped with the index generation it came from, so the
page and `papersift plot map` read it in milliseconds until the vectors change.
"""

from __future__ import annotations

import errno
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA

from papersift.topics.features import EmbeddingsUnavailable
from papersift.topics.predict import topics_dir

METHODS = ("pca", "umap")
# Measured on the dev corpus (24.5K vectors, 302 source-labeled among them): 10-NN area
# agreement in 2-D is 0.37 for PCA and 0.54 for UMAP; PCA takes ~1 s, UMAP minutes on
# 2 cores. So pages show UMAP when `papersift plot map --method umap` has cached it for the
# current vectors, and PCA (computed on the fly) otherwise.
AUTO = "auto"
# Projections of a data dir that cannot be written (a served read-only snapshot), by their cache path.
_unsaved: dict[str, MapPoints] = {}


class ProjectionError(ValueError):
    """An unknown projection method, or one whose package is not installed."""


@dataclass(frozen=True)
class MapPoints:
    paper_ids: list[str]
    xy: np.ndarray  # (n, 2) float32, scaled into [0, 1]
    method: str
    source: str  # the vector index generation it was computed from


def project(vectors: np.ndarray, method: str, seed: int = 0) -> np.ndarray:
    """(n, dim) vectors -> (n, 2) coordinates scaled to the unit square."""
    if method == "pca":
        xy = PCA(n_components=2, random_state=seed).fit_transform(vectors)
    elif method == "umap":
        try:
            import umap
        except ImportError as exc:
            raise ProjectionError("--method umap needs umap-learn (pip install umap-learn)") from exc
        xy = umap.UMAP(n_components=2, n_neighbors=15, min_dist=0.1, metric="cosine",
                       random_state=seed).fit_transform(vectors)
    else:
        raise ProjectionError(f"unknown projection method '{method}' (known: {', '.join(METHODS)})")
    low, high = np.percentile(xy, 0.1, axis=0), np.percentile(xy, 99.9, axis=0)
    return np.clip((xy - low) / np.maximum(high - low, 1e-9), 0.0, 1.0).astype(np.float32)


def _cached(data_dir, method: str, source: str) -> MapPoints | None:
    path = topics_dir(data_dir) / f"map-{method}.npz"
    if not path.exists():
        kept = _unsaved.get(str(path))
        return kept if kept is not None and kept.source == source else None
    cached = np.load(path, allow_pickle=False)
    if str(cached["source"]) != source:
        return None
    return MapPoints(cached["paper_ids"].tolist(), cached["xy"], method, source)


def map_points(data_dir: str | Path, method: str = AUTO, model: str | None = None) -> MapPoints:
    """The cached projection of the current vector index, computed when missing or stale.

    `auto`: UMAP if cached for these vectors, else PCA.
    """
    from papersift.index.models import DEFAULT_MODEL
    from papersift.index.vectors import VectorIndex

    if method not in (*METHODS, AUTO):
        raise ProjectionError(f"unknown projection method '{method}' (known: {', '.join((*METHODS, AUTO))})")
    model = model or DEFAULT_MODEL
    index = VectorIndex.open(data_dir, model)
    if index is None or len(index) == 0:
        raise EmbeddingsUnavailable(f"no {model} vectors in {data_dir}; run 'papersift embed' first")
    source = f"{model}/{index.folder.name}/{len(index)}"
    if method == AUTO:
        method = "umap" if _cached(data_dir, "umap", source) is not None else "pca"
    found = _cached(data_dir, method, source)
    if found is not None:
        return found
    path = topics_dir(data_dir) / f"map-{method}.npz"
    rows = index.first_rows()  # one point per paper: its first chunk
    paper_ids = [index.paper_ids[row] for row in rows]
    xy = project(np.asarray(index.vectors[rows], dtype=np.float32), method)
    points = MapPoints(paper_ids, xy, method, source)
    _save_cache(path, points)
    return points


def _save_cache(path: Path, points: MapPoints) -> None:
    """Keep a projection for the next request: replaced by one rename (a temporary file per
    writer, so two requests computing it at once cannot mix). Where the data dir cannot be
    written (a read-only snapshot being served) it is kept in this process instead."""
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(temporary, paper_ids=np.array(points.paper_ids), xy=points.xy, source=np.array(points.source))
        temporary.replace(path)
    except OSError as error:
        if error.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise
        _unsaved[str(path)] = points


def neighbour_agreement(xy: np.ndarray, labels: list[str], k: int = 10) -> float:
    """How often a point's k nearest neighbours in 2-D vote for its own label (leave-one-out).

    Measured on source-labeled papers, it says how much topical structure a projection keeps.
    """
    from sklearn.neighbors import KNeighborsClassifier

    if len(labels) <= k:
        return float("nan")
    neighbours = KNeighborsClassifier(n_neighbors=k + 1).fit(xy, labels)
    _, positions = neighbours.kneighbors(xy)
    label_array = np.asarray(labels)
    hits = 0
    for row, found in enumerate(positions):
        votes = [label_array[j] for j in found if j != row][:k]
        values, counts = np.unique(votes, return_counts=True)
        hits += values[counts.argmax()] == label_array[row]
    return hits / len(labels)
