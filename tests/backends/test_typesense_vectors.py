"""Vector search through Typesense's float[] field against exact cosine ranking of the same vectors."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_index import build_collection, make_client
from papersift.backends.typesense_vectors import TypesenseDenseRetriever, cache_vectors
from papersift.cluster.typesense_cluster import TypesenseCluster, loopback_nodes
from papersift.index.embeddings import EmbeddingCache, Encoder, embed_with_cache, paper_text
from papersift.ingest.pipeline import ingest_paths
from papersift.search.query import parse_query
from papersift.search.types import SearchRequest
from papersift.store import Store

pytestmark = [pytest.mark.cluster, pytest.mark.models]

MODEL = "all-MiniLM-L6-v2"
PAPERS = 150


@pytest.fixture(scope="module")
def setup(sample_records, tmp_path_factory):
    import orjson

    folder = tmp_path_factory.mktemp("vector_data")
    source = folder / "slice.jsonl"
    source.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[:PAPERS]))
    store = Store(folder / "data")
    ingest_paths(store, [source])
    encoder = Encoder(MODEL, threads=1)
    papers = [paper for _, paper in store.iter_papers()]
    with EmbeddingCache(folder / "data") as cache:
        vectors = embed_with_cache(encoder, cache, [paper_text(paper) for paper in papers])
    nodes = loopback_nodes(1)
    with TypesenseCluster(folder / "cluster", nodes, "key") as cluster:
        cluster.start(wait=60)
        client = make_client(cluster.node_urls(), "key")
        build_collection(client, store, cache_vectors(folder / "data", encoder), encoder.dim, vector_model=MODEL)
        backend = TypesenseBackend(client)
        yield TypesenseDenseRetriever(backend, encoder), papers, vectors, backend


def exact_top(query_vector, papers, vectors, k, keep=lambda paper: True):
    scores = vectors @ query_vector
    order = [i for i in np.argsort(-scores) if keep(papers[i])]
    return [papers[i].id for i in order[:k]]


def test_nearest_papers_match_exact_cosine_ranking(setup):
    retriever, papers, vectors, backend = setup
    assert backend.vector_model() == MODEL
    text = "graph neural networks for molecules"
    got = [paper_id for paper_id, _ in retriever.retrieve(SearchRequest(query=text), parse_query(text), 10)]
    expected = exact_top(retriever.encoder.encode_query(text), papers, vectors, 10)
    # HNSW is approximate: the head must be exact, the tail may swap a near-tie.
    assert got[:5] == expected[:5] and len(set(got) & set(expected)) >= 9


def test_filters_and_similar_papers(setup):
    retriever, papers, vectors, _ = setup
    venue = max({paper.venue for paper in papers}, key=lambda name: sum(p.venue == name for p in papers))
    text = f"reinforcement learning venue:{venue}"
    query = parse_query(text)
    got = [paper_id for paper_id, _ in retriever.retrieve(SearchRequest(query=text), query, 5)]
    expected = exact_top(retriever.encoder.encode_query("reinforcement learning"), papers, vectors, 5,
                         keep=lambda paper: paper.venue == venue)
    assert got[:3] == expected[:3] and len(set(got) & set(expected)) >= 4
    like = papers[0].id
    similar = [paper_id for paper_id, _ in retriever.retrieve(SearchRequest(like_id=like), parse_query(""), 5)]
    assert like not in similar
    assert similar[:3] == exact_top(vectors[0], papers, vectors, 6)[1:4]


def test_hybrid_through_the_cluster_answers_english_and_chinese_queries(setup, tmp_path):
    from papersift.backends.typesense_vectors import register_typesense_retrievers
    from papersift.search.service import SearchService

    retriever, papers, _, backend = setup
    store = Store(tmp_path)  # the papers the cluster holds, for the service to show
    store.upsert(papers)
    store.close()
    service = SearchService(tmp_path, backend=backend)
    register_typesense_retrievers(service, backend, retriever.encoder)
    english = service.search(SearchRequest(query="reinforcement learning", mode="hybrid", size=5))
    assert "reinforcement" in f"{english.hits[0].paper.title} {english.hits[0].paper.abstract}".lower()
    # no term bridge in the cluster path: a Chinese query is answered by its Latin words and the dense side
    mixed = service.search(SearchRequest(query="强化学习 reinforcement", mode="hybrid", size=5))
    assert mixed.hits and mixed.total > 0
