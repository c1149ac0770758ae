"""2-D coordinates of the paper embeddings for the topic map (PCA or UMAP), stored on disk.

Commands (`papersift topics map`, `papersift plot map`) compute the projection from the
published vector index and keep it in DATA_DIR/topics/map-<method>.npz, stamped with the
index generation it came from. The server only reads that file (stored_map_points): it
never projects (UMAP took 73 s CPU and ~2 GB in a request) nor writes into the data dir.
A map from older vectors is still served, marked stale, until the command is run again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.topics.files import EmbeddingsUnavailable, topics_dir

METHODS = ("pca", "umap")
# Measured on the dev corpus (24.5K vectors, 302 source-labeled among them): 10-NN area
# agreement in 2-D is 0.37 for PCA and 0.54 for UMAP; PCA takes ~1 s, UMAP minutes on
# 2 cores. So pages show UMAP when `papersift topics map` has stored it, else PCA.
AUTO = "auto"
MAP_COMMAND = "papersift topics map"


class ProjectionError(ValueError):
    """An unknown projection method, or one whose package is not installed."""


class MapNotComputed(LookupError):
    """No stored projection of this method: the message names the command that makes it."""


@dataclass(frozen=True)
class MapPoints:
    paper_ids: list[str]
    xy: np.ndarray  # (n, 2) float32, scaled into [0, 1]
    method: str
    source: str  # the vector index generation it was computed from
    stale: bool = False  # the vectors changed since (some papers missing, new ones not shown)


def project(vectors: np.ndarray, method: str, seed: int = 0) -> np.ndarray:
    """(n, dim) vectors -> (n, 2) coordinates scaled to the unit square."""
    if method == "pca":
        from sklearn.decomposition import PCA  # here: the server imports this module, never PCA

        xy = PCA(n_components=2, random_state=seed).fit_transform(vectors)
    elif method == "umap":
        try:
            import umap
        except ImportError as exc:
            raise ProjectionError("--method umap needs papersift[topics-map] (umap-learn): "
                                  "pip install 'papersift[topics-map]'") from exc
        xy = umap.UMAP(n_components=2, n_neighbors=15, min_dist=0.1, metric="cosine",
                       random_state=seed).fit_transform(vectors)
    else:
        raise ProjectionError(f"unknown projection method '{method}' (known: {', '.join(METHODS)})")
    low, high = np.percentile(xy, 0.1, axis=0), np.percentile(xy, 99.9, axis=0)
    return np.clip((xy - low) / np.maximum(high - low, 1e-9), 0.0, 1.0).astype(np.float32)


def _stored(data_dir, method: str) -> MapPoints | None:
    """The stored projection of `method` whatever vectors it came from, or None."""
    path = topics_dir(data_dir) / f"map-{method}.npz"
    try:
        with np.load(path, allow_pickle=False) as stored:
            return MapPoints(stored["paper_ids"].tolist(), stored["xy"], method, str(stored["source"]))
    except FileNotFoundError:
        return None


def _cached(data_dir, method: str, source: str) -> MapPoints | None:
    found = _stored(data_dir, method)
    return found if found is not None and found.source == source else None


def current_source(data_dir: str | Path, model: str) -> str | None:
    """The live vector generation as a projection records it, read without loading vectors."""
    from papersift.index.vectors import current_generation, read_meta

    folder = current_generation(data_dir, model)
    if folder is None:
        return None
    meta = read_meta(folder)
    return f"{model}/{folder.name}/{meta.rows}" if meta is not None and meta.rows else None


def stored_map_points(data_dir: str | Path, method: str = AUTO, model: str | None = None) -> MapPoints:
    """What the server shows: the stored projection, never computed here. `auto`: UMAP when
    stored, else PCA. Raises EmbeddingsUnavailable without vectors, MapNotComputed without a
    stored projection (the message names the command)."""
    from papersift.models import DEFAULT_MODEL

    if method not in (*METHODS, AUTO):
        raise ProjectionError(f"unknown projection method '{method}' (known: {', '.join((*METHODS, AUTO))})")
    model = model or DEFAULT_MODEL
    source = current_source(data_dir, model)
    if source is None:
        raise EmbeddingsUnavailable(f"no {model} vectors yet; run 'papersift embed', then '{MAP_COMMAND}'")
    candidates = ("umap", "pca") if method == AUTO else (method,)
    stored = [found for found in (_stored(data_dir, name) for name in candidates) if found is not None]
    if not stored:
        option = "" if method == AUTO else f" --method {method}"
        raise MapNotComputed(f"the topic map is not computed yet; run '{MAP_COMMAND}{option}'")
    current = [found for found in stored if found.source == source]
    chosen = (current or stored)[0]
    return MapPoints(chosen.paper_ids, chosen.xy, chosen.method, chosen.source, stale=chosen.source != source)


def map_points(data_dir: str | Path, method: str = AUTO, model: str | None = None) -> MapPoints:
    """The stored projection of the current vector index, computed and stored when missing
    or stale (commands only: minutes for UMAP). `auto`: UMAP if stored for these vectors, else PCA.
    """
    from papersift.index.vectors import VectorIndex
    from papersift.models import DEFAULT_MODEL

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
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")  # two commands never share one
    np.savez(temporary, paper_ids=np.array(paper_ids), xy=xy, source=np.array(source))
    temporary.replace(path)
    return MapPoints(paper_ids, xy, method, source)


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
