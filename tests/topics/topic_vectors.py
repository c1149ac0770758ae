"""Stand-in vectors for topic tests: the papers' own tf-idf reduced by SVD (64-d, unit
length). They have the encoder's shape and meaning (text similarity) without minutes of
CPU embedding. A plain module, not conftest, so other folders' conftests cannot shadow it."""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from papersift.index.models import DEFAULT_MODEL
from papersift.index.vectors import write_index
from papersift.store import Store
from papersift.topics.features import paper_text


def text_vectors(texts: list[str], dim: int = 64) -> np.ndarray:
    matrix = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(texts)
    return normalize(TruncatedSVD(n_components=dim, random_state=0).fit_transform(matrix)).astype(np.float32)


def publish_text_vectors(data_dir) -> None:
    store = Store(data_dir, readonly=True)
    seq_papers = list(store.iter_papers())
    store.close()
    papers = [paper for _, paper in seq_papers]
    write_index(data_dir, DEFAULT_MODEL, [p.id for p in papers], text_vectors([paper_text(p) for p in papers]),
                papers_total=len(papers), last_seq=max(seq for seq, _ in seq_papers))
