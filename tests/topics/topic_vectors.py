"""Stand-in vectors for topic tests: the papers' own tf-idf reduced by SVD (64-d, unit
length). They have the encoder's shape and meaning (text similarity) without minutes of
CPU embedding. A plain module, not conftest, so other folders' conftests cannot shadow it.

The default topic model reads two sources: e5 vectors from the vector index, and MiniLM
int8 vectors from the embedding cache (under the keys the real encoder's tokens give)."""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from papersift.index.embeddings import EmbeddingCache, Encoder, token_key
from papersift.index.embeddings import paper_text as embedding_text
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, build_model
from papersift.store import Store
from papersift.topics.features import EMBEDDING_SOURCES, paper_text


def text_vectors(texts: list[str], dim: int = 64) -> np.ndarray:
    matrix = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(texts)
    return normalize(TruncatedSVD(n_components=dim, random_state=0).fit_transform(matrix)).astype(np.float32)


def cache_minilm_stand_ins(data_dir, papers, vectors: np.ndarray) -> None:
    """Put `vectors` in the embedding cache where the MiniLM int8 source looks for these papers."""
    source = EMBEDDING_SOURCES["minilm"]
    build_model(source.model, log=lambda _: None)  # no-op when built
    encoder = Encoder(source.model, variant=source.variant, threads=1)
    token_lists = encoder.tokenize([encoder.passage_input(embedding_text(paper)) for paper in papers])
    with EmbeddingCache(data_dir) as cache:
        cache.put_many((token_key(encoder.cache_key_prefix, ids), vector) for ids, vector in zip(token_lists, vectors))


def publish_text_vectors(data_dir, minilm: bool = True) -> None:
    store = Store(data_dir, readonly=True)
    seq_papers = list(store.iter_papers())
    store.close()
    papers = [paper for _, paper in seq_papers]
    vectors = text_vectors([paper_text(p) for p in papers])
    write_index(data_dir, DEFAULT_MODEL, [p.id for p in papers], vectors,
                papers_total=len(papers), last_seq=max(seq for seq, _ in seq_papers))
    if minilm:
        cache_minilm_stand_ins(data_dir, papers, vectors[:, ::-1].copy())
