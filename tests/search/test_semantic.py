"""The dense retriever over a real slice (vectors are random unit vectors: what is checked is
which rows may be returned, not how well they are ranked)."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index import lexical
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, get_spec
from papersift.record import Paper
from papersift.search.query import ParsedQuery
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store


@pytest.mark.models
def test_title_only_papers_are_left_to_the_keyword_side(sample_data_dir, tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    store = Store(data_dir)
    title_only = Paper(id="NeurIPS-2024-title-only", title="Graph neural networks for molecules", venue="NeurIPS", year=2024)
    store.upsert([paper for _, paper in Store(sample_data_dir, readonly=True).iter_papers()] + [title_only])
    store.close()
    lexical.build(data_dir)
    seq_papers = list(Store(data_dir, readonly=True).iter_papers())
    vectors = np.random.default_rng(1).standard_normal((len(seq_papers), get_spec(DEFAULT_MODEL).dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    write_index(data_dir, DEFAULT_MODEL, [paper.id for _, paper in seq_papers], vectors,
                papers_total=len(seq_papers), last_seq=max(seq for seq, _ in seq_papers))

    retriever = DenseRetriever(data_dir, SearchService(data_dir), floor=None)  # random vectors: no calibrated floor
    ranked = retriever.rank_text("graph neural networks for molecules", ParsedQuery(), k=len(seq_papers))
    assert len(ranked) == len(seq_papers) - 1
    assert title_only.id not in {paper_id for paper_id, _ in ranked}
    hits = SearchService(data_dir).search(SearchRequest(query='"graph neural networks for molecules"', mode="keyword")).hits
    assert title_only.id in {hit.paper.id for hit in hits}
