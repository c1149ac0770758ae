"""A hybrid-capable service over a real corpus slice without running a model: e5 vectors, a
term bridge and query embeddings are deterministic pseudo-random unit vectors, and the
encoder counts its calls (what the request-cost tests assert on)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np

from papersift.index import bridge
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL
from papersift.search.hybrid import HybridRetriever
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.store import Store

DIM = 384


def unit_vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


class CountingEncoder:
    """Embeds any text to its own fixed vector and counts the model calls, per kind."""

    name = DEFAULT_MODEL
    dim = DIM

    def __init__(self):
        self.calls = {"encode_query": 0, "encode_queries": 0}
        self._lock = threading.Lock()

    def _count(self, kind: str) -> None:
        with self._lock:
            self.calls[kind] += 1

    def reset(self) -> None:
        self.calls = dict.fromkeys(self.calls, 0)

    def encode_query(self, text: str) -> np.ndarray:
        self._count("encode_query")
        return unit_vector(text)

    def encode_queries(self, texts, batch_size: int = 32) -> np.ndarray:
        self._count("encode_queries")
        return np.stack([unit_vector(text) for text in texts]) if texts else np.zeros((0, DIM), np.float32)

    def encode_passages(self, texts, batch_size: int = 32) -> np.ndarray:
        return self.encode_queries(texts)

    # what semantic.started_query_encoding calls: the "token ids" here are the text itself, and
    # the model call is encode_query's (counted and recorded as such)
    def query_input(self, text: str) -> str:
        return text

    def tokenize(self, inputs) -> list[list[str]]:
        return [[text] for text in inputs]

    def encode_token_ids(self, token_lists) -> np.ndarray:
        return np.stack([self.encode_query(ids[0]) for ids in token_lists])


class CountingRetriever:
    """Wraps a retriever and counts its retrievals."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = 0
        self._lock = threading.Lock()

    def notices(self) -> list[str]:
        return self.inner.notices()

    def reading_for(self, text: str):
        """The reading the wrapped retriever ranks with (the page's keyword side shares a description's)."""
        return self.inner.reading_for(text)

    def retrieve(self, *args, **kwargs):
        with self._lock:
            self.calls += 1
        return self.inner.retrieve(*args, **kwargs)


def add_vectors_and_bridge(data_dir: Path) -> None:
    """e5 vectors for every paper and a term bridge over the corpus's terms."""
    store = Store(data_dir, readonly=True)
    seq_papers = list(store.iter_papers())
    store.close()
    ids = [paper.id for _, paper in seq_papers]
    last_seq = max(seq for seq, _ in seq_papers)
    vectors = np.stack([unit_vector("paper " + paper_id) for paper_id in ids])
    write_index(data_dir, DEFAULT_MODEL, ids, vectors, len(ids), last_seq)
    encoder = CountingEncoder()
    bridge.build_bridge(data_dir, [paper for _, paper in seq_papers], encoder, last_seq,
                        embed_terms=encoder.encode_queries)


def hybrid_service(data_dir: Path) -> tuple[SearchService, CountingEncoder, dict[str, CountingRetriever]]:
    """A service whose semantic and hybrid modes embed with a CountingEncoder (each its own dense
    side, as the service's plug-ins have)."""
    service = SearchService(data_dir)
    encoder = CountingEncoder()
    dense = DenseRetriever(data_dir, service, encoder=encoder)
    hybrid_dense = DenseRetriever(data_dir, service, encoder=encoder, quick_descriptions=True)  # as hybrid.make_retriever
    retrievers = {"semantic": CountingRetriever(dense), "hybrid": CountingRetriever(HybridRetriever(hybrid_dense, service))}
    for mode, retriever in retrievers.items():
        service.register_retriever(mode, retriever)
    return service, encoder, retrievers
