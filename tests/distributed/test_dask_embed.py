"""Distributed embedding on a loopback Dask cluster: a worker killed mid-way, nothing lost or doubled."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from loopback_sockets import listening_addresses
from papersift.distributed.dask_embed import (
    dask_client,
    embed_store_distributed,
    encoder_spec,
    fill_cache,
    missing_chunks,
)
from papersift.index.embeddings import EmbeddingCache, Encoder, embed_papers, embed_with_cache, paper_text
from papersift.ingest.pipeline import ingest_paths
from papersift.store import Store

pytestmark = pytest.mark.models

MODEL = "all-MiniLM-L6-v2"  # the smallest built model: the drill is about scheduling, not quality
PAPERS = 240
CHUNK = 24


@pytest.fixture(scope="module")
def papers(sample_jsonl, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("dask_store"))
    ingest_paths(store, [sample_jsonl])
    return [paper for _, paper in store.iter_papers()][:PAPERS]


@pytest.fixture(scope="module")
def encoder():
    return Encoder(MODEL, threads=1)


@pytest.mark.drill
def test_killed_worker_every_paper_embedded_once_same_vectors(papers, encoder, tmp_path):
    single = embed_papers(tmp_path / "single", papers, encoder, chunk_size=CHUNK)
    assert single.texts > len(papers)  # some papers have a second passage: the cluster embeds those too

    written: list[int] = []
    with dask_client("local", workers=2) as client:
        worker_pids = client.run(os.getpid)
        own = set(worker_pids.values()) | {os.getpid()}
        assert all(address.startswith("127.0.0.1:") for address in listening_addresses(own))

        def kill_one_worker_after_first_chunk(index: int) -> None:
            written.append(index)
            if len(written) == 1:
                os.kill(next(iter(worker_pids.values())), signal.SIGKILL)

        spec = encoder_spec(encoder, None, threads=1)
        cached, embedded = fill_cache(client, tmp_path / "dist", papers, encoder, spec, chunk_size=CHUNK,
                                      on_chunk=kill_one_worker_after_first_chunk)

    assert cached == 0 and embedded == single.texts
    assert sorted(written) == list(range(-(-single.texts // CHUNK)))  # each chunk written exactly once
    with EmbeddingCache(tmp_path / "dist") as cache:
        plan = missing_chunks(encoder, cache, papers, CHUNK)
        assert plan.chunks == [] and cache.count() == len(set(plan.keys))
        vectors = np.stack([cache.get_many([key])[key] for key in plan.keys])
    with EmbeddingCache(tmp_path / "single") as single_cache:
        expected = np.stack([single_cache.get_many([key])[key] for key in plan.keys])
    assert np.abs(vectors - expected).max() <= 1e-6
    # publishing afterwards (what `embed --dask` does) finds every passage cached
    assert embed_papers(tmp_path / "dist", papers, encoder, chunk_size=CHUNK).embedded == 0


def test_a_rerun_embeds_nothing_new(papers, encoder, tmp_path):
    with EmbeddingCache(tmp_path / "dist") as cache:
        embed_with_cache(encoder, cache, [paper_text(paper) for paper in papers[:30]], chunk_size=CHUNK)
        plan = missing_chunks(encoder, cache, papers[:30], CHUNK)
    tails = len(plan.keys) - 30  # second passages: embed_with_cache embedded only the first
    assert plan.cached == 30 and sum(map(len, plan.chunks)) == tails
    with EmbeddingCache(tmp_path / "dist") as cache:
        embed_papers(tmp_path / "dist", papers[:30], encoder, chunk_size=CHUNK)
        again = missing_chunks(encoder, cache, papers[:30], CHUNK)
    assert again.cached == len(again.keys) and again.chunks == []


def test_embed_dask_reports_what_it_embedded_and_the_coverage(papers, encoder, tmp_path):
    """What `papersift embed --dask local` prints: passages, coverage and the published index."""
    store = Store(tmp_path / "data")
    store.upsert(papers[:40])
    store.close()
    summary = embed_store_distributed(tmp_path / "data", encoder, "local", workers=2)
    single = embed_papers(tmp_path / "single", papers[:40], encoder)
    assert (summary.papers, summary.cached, summary.texts) == (40, 0, single.texts)
    assert summary.embedded == single.texts and summary.covered == 40
    assert summary.index_folder is not None and summary.index_folder.is_dir()
