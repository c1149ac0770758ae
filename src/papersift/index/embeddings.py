"""The embedding pipeline: a data dir's papers -> the vector index, through the embedding cache.

`embed_papers` takes each passage's vector from the cache (index/embedding_cache.py) or embeds
it with the encoder (index/encoder.py), shortest first, publishing the vector index as it grows,
then rebuilds the term bridge. The encoder's and the cache's names are re-exported here for
the callers that import them from this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.config import cpu_threads
from papersift.index.embedding_cache import (
    CACHE_MIGRATIONS,
    CACHE_SCHEMA_VERSION,
    EMBEDDINGS_FOLDER,
    EmbeddingCache,
    migrate_cache,
    token_key,
)
from papersift.index.encoder import DEVICES, Encoder, choose_providers, make_encoder, padding_share, tail_text
from papersift.record import Paper, paper_text

__all__ = ["CACHE_MIGRATIONS", "CACHE_SCHEMA_VERSION", "DEVICES", "EMBEDDINGS_FOLDER", "PUBLISH_GROWTH", "TOKENIZE_BLOCK",
           "EmbedProgress", "EmbedSummary", "EmbeddingCache", "Encoder", "choose_providers", "cpu_threads",
           "embed_papers", "embed_store", "embed_with_cache", "make_encoder", "migrate_cache", "padding_share",
           "paper_text", "publish_due", "tail_text", "token_key"]

TOKENIZE_BLOCK = 4096  # papers tokenized at a time by embed_papers
PUBLISH_GROWTH = 0.25  # past the scan size, publish once the new vectors are this share of the index


@dataclass(frozen=True, slots=True)
class EmbedProgress:
    total: int
    cached: int
    embedded: int


def embed_with_cache(encoder: Encoder, cache: EmbeddingCache, texts: Sequence[str],
                     chunk_size: int = 256, batch_size: int | None = None,
                     on_progress: Callable[[EmbedProgress], None] | None = None,
                     as_queries: bool = False) -> np.ndarray:
    """Passage (or query) vectors for `texts`: cached ones are read, the rest embedded and
    written chunk by chunk (so a kill loses at most one chunk)."""
    to_input = encoder.query_input if as_queries else encoder.passage_input
    token_lists = encoder.tokenize([to_input(t) for t in texts])
    keys = [token_key(encoder.cache_key_prefix, ids) for ids in token_lists]
    vectors = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    found = cache.get_many(keys)
    missing = []
    for row, key in enumerate(keys):
        if key in found:
            vectors[row] = found[key]
        else:
            missing.append(row)
    done = 0
    cached = len(texts) - len(missing)
    if on_progress:
        on_progress(EmbedProgress(len(texts), cached, 0))
    # Chunks of similar length: long texts together, so batches inside a chunk pad little.
    missing.sort(key=lambda r: len(token_lists[r]))
    for start in range(0, len(missing), chunk_size):
        rows = missing[start:start + chunk_size]
        chunk_vectors = encoder.encode_token_ids([token_lists[r] for r in rows], batch_size)
        vectors[rows] = chunk_vectors
        cache.put_many((keys[r], v) for r, v in zip(rows, chunk_vectors))
        done += len(rows)
        if on_progress:
            on_progress(EmbedProgress(len(texts), cached, done))
    return vectors


@dataclass(frozen=True, slots=True)
class EmbedSummary:
    papers: int
    cached: int
    embedded: int
    seconds: float
    index_folder: Path | None
    bridge_folder: Path | None = None  # set when this run (re)built the term bridge
    texts: int = 0  # passages: a paper the model cannot read whole has two
    covered: int = 0  # papers with at least one vector


def embed_store(data_dir: str | os.PathLike, encoder: Encoder, **options) -> EmbedSummary:
    """Embed every paper of the data dir's store (see embed_papers for the options)."""
    from papersift.store import Store

    store = Store(Path(data_dir), readonly=True)
    try:
        seq_papers = list(store.iter_papers(0))
    finally:
        store.close()
    last_seq = max((seq for seq, _ in seq_papers), default=0)
    return embed_papers(data_dir, [paper for _, paper in seq_papers], encoder, last_seq, **options)


def embed_papers(data_dir: str | os.PathLike, papers: Sequence[Paper], encoder: Encoder, last_seq: int = 0,
                 seed_dirs: Sequence[str | os.PathLike] = (), publish_every: int = 4096, chunk_size: int = 256,
                 limit: int | None = None, on_progress: Callable[[EmbedProgress], None] | None = None,
                 on_terms_progress: Callable[[EmbedProgress], None] | None = None) -> EmbedSummary:
    """Embed the papers the cache lacks into DATA_DIR's vector index, publishing it as it grows.

    Shortest texts go first (title-only papers take milliseconds), so coverage climbs fast;
    the index is rewritten every `publish_every` new vectors, which is what lets search use
    semantic results while the run continues. Killing the run loses at most one chunk.
    `seed_dirs` are other data dirs whose caches are read first (an evaluation corpus reuses
    the vectors the main data dir already has for the same texts). Once every paper has a
    vector, the term bridge (index/bridge.py; multilingual models only) is rebuilt if the papers
    changed since it was.
    """
    import time

    started = time.perf_counter()
    # A static model embeds each block at once (no sort by length is needed: it does not pad),
    # so it keeps no token ids at all.
    immediate = bool(encoder.spec.distilled_from) and limit is None
    with EmbeddingCache(data_dir) as cache:
        texts = _read_texts(papers, encoder, cache, seed_dirs, immediate, on_progress)
        missing = sorted(texts.pending, key=lambda row: texts.lengths[row])
        if limit is not None:
            missing = missing[:limit]
        folder = _embed_and_publish(data_dir, papers, encoder, cache, texts, missing, last_seq,
                                    publish_every, chunk_size, on_progress if not immediate else None, on_progress)
        bridge_folder = _refresh_bridge(data_dir, papers, encoder, cache, texts, last_seq, on_terms_progress)
    return EmbedSummary(len(papers), texts.cached, texts.embedded, time.perf_counter() - started, folder, bridge_folder,
                        texts=len(texts.keys), covered=texts.covered())


class _Texts:
    """The passages of a run's papers, a paper's in order (rows): each one's paper, token count
    and cache key, and its vector once the cache or the encoder gave it."""

    def __init__(self, papers: int, dim: int):
        self.row_papers: list[int] = []  # the paper (position in `papers`) of each text, chunks in order
        self.lengths: list[int] = []
        self.pending: dict[int, np.ndarray] = {}  # row -> token ids of a text still to embed
        self.keys: list[bytes] = []
        self.vectors = np.zeros((papers, dim), dtype=np.float32)  # grows for papers with two passages
        self.have = np.zeros(papers, dtype=bool)
        self.cached = self.embedded = 0

    def add(self, position: int, ids: Sequence[int], key: bytes) -> None:
        self.row_papers.append(position)
        self.lengths.append(len(ids))
        self.keys.append(key)
        self.pending[len(self.keys) - 1] = np.asarray(ids, dtype=np.int32)

    def make_room(self) -> None:
        """Grow the vectors to hold every text added."""
        if len(self.keys) > len(self.vectors):
            extra = max(len(self.keys) - len(self.vectors), len(self.vectors) // 2)
            self.vectors = np.concatenate([self.vectors, np.zeros((extra, self.vectors.shape[1]), dtype=np.float32)])
            self.have = np.concatenate([self.have, np.zeros(extra, dtype=bool)])

    def trim(self) -> None:
        self.vectors, self.have = self.vectors[:len(self.keys)], self.have[:len(self.keys)]

    def covered(self) -> int:
        """Papers with at least one vector."""
        return len({self.row_papers[row] for row in np.flatnonzero(self.have)})


def _read_texts(papers: Sequence[Paper], encoder: Encoder, cache: EmbeddingCache,
                seed_dirs: Sequence[str | os.PathLike], immediate: bool,
                on_progress: Callable[[EmbedProgress], None] | None) -> _Texts:
    """Tokenize the papers TOKENIZE_BLOCK at a time, keeping only the token ids of texts the
    caches lack (int32): tokenizing every paper at once held ~40 KB per paper (the tokenizer's
    encodings and Python int lists; 800 MB for 20K papers), which at 1M papers does not fit in
    memory. `immediate` (a static model) embeds what each block lacks at once."""
    texts = _Texts(len(papers), encoder.dim)
    seeds = [EmbeddingCache(seed_dir, readonly=True) for seed_dir in seed_dirs
             if (Path(seed_dir) / EMBEDDINGS_FOLDER / "cache.sqlite3").exists()]
    try:
        if on_progress and immediate:
            on_progress(EmbedProgress(len(papers), 0, 0))
        for block_start in range(0, len(papers), TOKENIZE_BLOCK):
            first_row = len(texts.keys)
            for position, chunks in enumerate(encoder.passage_chunks(papers[block_start:block_start + TOKENIZE_BLOCK]),
                                              block_start):
                for ids in chunks:
                    texts.add(position, ids, token_key(encoder.cache_key_prefix, ids))
            texts.make_room()
            _read_cached(texts, first_row, cache, seeds)
            if immediate and texts.pending:
                _embed_rows(texts, sorted(texts.pending), encoder, cache)
            if on_progress and immediate:
                on_progress(EmbedProgress(len(papers), texts.cached, texts.embedded))
    finally:
        for seed in seeds:
            seed.close()
    texts.trim()
    return texts


def _read_cached(texts: _Texts, first_row: int, cache: EmbeddingCache, seeds: list[EmbeddingCache]) -> None:
    """The vectors of the texts from `first_row` on that the cache or a seed cache holds (a
    seed's are copied into the cache)."""
    block_keys = texts.keys[first_row:]
    found = cache.get_many(block_keys)
    for seed in seeds:
        seeded = seed.get_many([key for key in block_keys if key not in found])
        cache.put_many(seeded.items())
        found.update(seeded)
    for row, key in enumerate(block_keys, first_row):
        vector = found.get(key)
        if vector is not None:
            texts.vectors[row], texts.have[row] = vector, True
            del texts.pending[row]
            texts.cached += 1


def _embed_rows(texts: _Texts, rows: list[int], encoder: Encoder, cache: EmbeddingCache) -> None:
    """Embed these pending texts and cache their vectors."""
    vectors = encoder.encode_token_ids([texts.pending.pop(row) for row in rows])
    texts.vectors[rows], texts.have[rows] = vectors, True
    cache.put_many((texts.keys[row], vector) for row, vector in zip(rows, vectors))
    texts.embedded += len(rows)


def _embed_and_publish(data_dir: str | os.PathLike, papers: Sequence[Paper], encoder: Encoder, cache: EmbeddingCache,
                       texts: _Texts, missing: list[int], last_seq: int, publish_every: int, chunk_size: int,
                       on_start: Callable[[EmbedProgress], None] | None,
                       on_progress: Callable[[EmbedProgress], None] | None) -> Path | None:
    """Embed the `missing` rows chunk by chunk, publishing the vector index before (when stale),
    as it grows and at the end; the generation that holds them all."""
    from papersift.index import vectors as vector_index

    def publish() -> Path:
        rows = np.flatnonzero(texts.have)  # in paper order, a paper's chunks in order
        return vector_index.write_index(data_dir, encoder.name, [papers[texts.row_papers[r]].id for r in rows],
                                        texts.vectors[rows], papers_total=len(papers), last_seq=last_seq)

    if encoder.spec.distilled_from:  # a static model embeds every paper in seconds: publish once
        publish_every = max(publish_every, len(missing))
    current = vector_index.current_generation(data_dir, encoder.name)
    folder = current
    stale = current is None or _meta_differs(current, int(texts.have.sum()), len(papers), last_seq)
    if on_start:
        on_start(EmbedProgress(len(texts.keys), texts.cached, 0))
    if missing and stale:
        folder = publish()  # what the cache already holds is searchable at once
    since_publish = 0
    for start in range(0, len(missing), chunk_size):
        rows = missing[start:start + chunk_size]
        _embed_rows(texts, rows, encoder, cache)
        since_publish += len(rows)
        if on_progress:
            on_progress(EmbedProgress(len(texts.keys), texts.cached, texts.embedded))
        if since_publish >= publish_every and publish_due(since_publish, int(texts.have.sum()), vector_index.SCAN_MIN_ROWS):
            folder, since_publish = publish(), 0
    if texts.embedded or stale:
        folder = publish()
    else:  # up to date; one written before faiss lacks its scan index (issue 20)
        vector_index.add_missing_scan(data_dir, encoder.name)
    return folder


def _refresh_bridge(data_dir: str | os.PathLike, papers: Sequence[Paper], encoder: Encoder, cache: EmbeddingCache,
                    texts: _Texts, last_seq: int,
                    on_terms_progress: Callable[[EmbedProgress], None] | None) -> Path | None:
    """Rebuild the term bridge when every paper has a vector and the papers changed since it
    was built; its folder, or None when it was not rebuilt."""
    from papersift.index import bridge

    # the term bridge is e5's (a static model's neighbours would be a worse translation)
    bridged = encoder.spec.multilingual and not encoder.spec.distilled_from
    if bridged and texts.have.all() and bridge.is_stale(data_dir, encoder.name, len(papers), last_seq):
        return bridge.build_bridge(
            data_dir, papers, encoder, last_seq,
            embed_terms=lambda terms: embed_with_cache(encoder, cache, terms, batch_size=128,
                                                       on_progress=on_terms_progress, as_queries=True))
    return None


def publish_due(new_rows: int, rows: int, scan_min_rows: int) -> bool:
    """Whether a run should publish its vectors now (it already has `publish_every` new ones).
    Below the scan size a generation is a small file write; past it, each generation rewrites
    every row twice (vectors.npy and scan.faiss: ~1 GB at 1M x 256 float16), so a run
    publishes only once its new vectors are PUBLISH_GROWTH of the index: e5 at 1M papers would
    otherwise write a gigabyte for every 4,096 vectors."""
    return rows < scan_min_rows or new_rows >= PUBLISH_GROWTH * rows


def _meta_differs(folder: Path, rows: int, papers_total: int, last_seq: int) -> bool:
    from papersift.index.vectors import read_meta

    meta = read_meta(folder)
    return meta is None or (meta.rows, meta.papers_total, meta.last_seq) != (rows, papers_total, last_seq)

