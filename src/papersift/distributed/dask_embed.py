"""Distributed embedding on a Dask cluster: the store's missing vectors, chunk by chunk,
across workers, into the same embedding cache as `papersift embed`.

Why Dask and not Ray: Ray 2.60's GCS, raylet and worker gRPC servers listen on every
interface whatever node IP is given (checked with `ss -tlnp`), so it cannot be held to
loopback here; a Dask scheduler and its workers bind exactly the host they are given.

The driver (this process) is the only writer: it works out which texts the cache lacks,
cuts them into the very chunks the single-process path uses (every passage of every paper,
shortest first, same chunk size, same batches inside a chunk), sends one task per chunk (its token ids), and writes each chunk's
vectors to the cache as its task completes. A worker that dies takes its running tasks
with it; the scheduler runs them again on another worker, and each chunk is written once,
when its one result arrives. A killed driver resumes from the cache on the next run.
Finally the vector index is published by the single-process `embed_papers`, which then
finds every vector cached.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.index.embeddings import (
    TOKENIZE_BLOCK,
    EmbeddingCache,
    EmbedProgress,
    EmbedSummary,
    Encoder,
    embed_papers,
    token_key,
)
from papersift.record import Paper

CHUNK_SIZE = 256  # as embed_papers: identical chunks give identical vectors
LOOPBACK = "127.0.0.1"

_worker_encoders: dict[tuple, Encoder] = {}
_worker_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class EncoderSpec:
    """What a worker needs to build the same encoder as the driver."""

    model: str
    variant: str
    max_tokens: int
    models_root: str | None
    threads: int


def encoder_spec(encoder: Encoder, models_root: str | os.PathLike | None, threads: int) -> EncoderSpec:
    return EncoderSpec(encoder.name, encoder.variant, encoder.max_tokens,
                       str(models_root) if models_root else None, threads)


def worker_encoder(spec: EncoderSpec) -> Encoder:
    """One encoder per worker process, built on its first chunk."""
    key = (spec.model, spec.variant, spec.max_tokens, spec.models_root, spec.threads)
    with _worker_lock:
        if key not in _worker_encoders:
            _worker_encoders[key] = Encoder(spec.model, variant=spec.variant, models_root=spec.models_root,
                                            threads=spec.threads, max_tokens=spec.max_tokens)
        return _worker_encoders[key]


def encode_chunk(spec: EncoderSpec, chunk_index: int, token_lists: list[np.ndarray]) -> tuple[int, np.ndarray]:
    """The task a worker runs: token ids (the driver tokenized them) -> vectors."""
    return chunk_index, worker_encoder(spec).encode_token_ids(token_lists)


@dataclass(frozen=True, slots=True)
class MissingChunks:
    keys: list[bytes]
    token_lists: dict[int, np.ndarray]  # row -> token ids, only for the rows the cache lacks
    chunks: list[list[int]]  # rows of each chunk, in the single-process order
    cached: int


def missing_chunks(encoder: Encoder, cache: EmbeddingCache, papers: Sequence[Paper],
                   chunk_size: int = CHUNK_SIZE) -> MissingChunks:
    # every passage embed_papers would embed (a long paper's second one too), in its order, so the
    # final embed_papers finds all of them cached and the cluster does all the work; tokenized
    # TOKENIZE_BLOCK papers at a time keeping only the missing rows' ids, as embed_papers does
    keys: list[bytes] = []
    token_lists: dict[int, np.ndarray] = {}
    for start in range(0, len(papers), TOKENIZE_BLOCK):
        block = [ids for chunks in encoder.passage_chunks(papers[start:start + TOKENIZE_BLOCK]) for ids in chunks]
        block_keys = [token_key(encoder.cache_key_prefix, ids) for ids in block]
        found = cache.get_many(block_keys)
        for ids, key in zip(block, block_keys):
            if key not in found:
                token_lists[len(keys)] = np.asarray(ids, dtype=np.int32)
            keys.append(key)
    missing = sorted(token_lists, key=lambda row: len(token_lists[row]))  # rows ascending, then stable by length
    chunks = [missing[start:start + chunk_size] for start in range(0, len(missing), chunk_size)]
    return MissingChunks(keys, token_lists, chunks, len(keys) - len(missing))


@contextmanager
def dask_client(address: str, workers: int = 2, threads_per_worker: int = 1):
    """`local`: a LocalCluster of worker processes bound to 127.0.0.1, no dashboard;
    otherwise the scheduler address of a running cluster (tcp://host:port)."""
    from dask.distributed import Client, LocalCluster

    if address == "local":
        with LocalCluster(n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                          host=LOOPBACK, dashboard_address=None, protocol="tcp") as cluster, Client(cluster) as client:
            yield client
    else:
        with Client(address) as client:
            yield client


def fill_cache(client, data_dir: str | os.PathLike, papers: Sequence[Paper], encoder: Encoder,
               spec: EncoderSpec, chunk_size: int = CHUNK_SIZE,
               on_progress: Callable[[EmbedProgress], None] | None = None,
               on_chunk: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Embed what the cache lacks on the cluster's workers; returns (cached before, embedded)."""
    from dask.distributed import as_completed

    with EmbeddingCache(data_dir) as cache:
        plan = missing_chunks(encoder, cache, papers, chunk_size)
        if on_progress:
            on_progress(EmbedProgress(len(plan.keys), plan.cached, 0))
        futures = [client.submit(encode_chunk, spec, index, [plan.token_lists[r] for r in rows], pure=False,
                                 key=f"papersift-embed-{index}-{time.time_ns()}")
                   for index, rows in enumerate(plan.chunks)]
        embedded = 0
        for future in as_completed(futures):
            index, vectors = future.result()
            rows = plan.chunks[index]
            cache.put_many((plan.keys[r], vector) for r, vector in zip(rows, vectors))
            embedded += len(rows)
            future.release()
            if on_progress:
                on_progress(EmbedProgress(len(plan.keys), plan.cached, embedded))
            if on_chunk:
                on_chunk(index)
    return plan.cached, embedded


def embed_store_distributed(data_dir: str | os.PathLike, encoder: Encoder, address: str = "local",
                            workers: int = 2, worker_threads: int = 1, models_root: str | os.PathLike | None = None,
                            on_progress: Callable[[EmbedProgress], None] | None = None) -> EmbedSummary:
    """`papersift embed --dask ADDRESS|local`: fill the cache on the cluster, then publish the index."""
    from papersift.store import Store

    started = time.perf_counter()
    store = Store(Path(data_dir), readonly=True)
    try:
        seq_papers = list(store.iter_papers(0))
    finally:
        store.close()
    papers = [paper for _, paper in seq_papers]
    spec = encoder_spec(encoder, models_root, worker_threads)
    with dask_client(address, workers, worker_threads) as client:
        cached, embedded = fill_cache(client, data_dir, papers, encoder, spec, on_progress=on_progress)
    last_seq = max((seq for seq, _ in seq_papers), default=0)
    published = embed_papers(Path(data_dir), papers, encoder, last_seq)  # finds every passage cached
    return EmbedSummary(len(papers), cached, embedded + published.embedded, time.perf_counter() - started,
                        published.index_folder, published.bridge_folder, texts=published.texts,
                        covered=published.covered)
