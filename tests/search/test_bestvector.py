"""The best-vector retriever (search/bestvector.py) over a real slice: e5 vectors for some papers,
static vectors for all. Vectors are pseudo-random unit vectors: what is checked is which space
ranks which paper and how the two lists merge, not ranking quality (bench embed measures it)."""

from __future__ import annotations

import hashlib
import shutil

import numpy as np
import pytest

from papersift.index import lexical
from papersift.index.vectors import model_root, write_index
from papersift.models import DEFAULT_MODEL, STATIC_MODEL
from papersift.search import dense, semantic
from papersift.search.bestvector import BestVectorRetriever, merge_by_zscore
from papersift.search.fusion import STATIC_DENSE_TRUST, fuse_hybrid
from papersift.search.query import ParsedQuery, parse_query
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store

QUERY = parse_query("graph neural networks")


def test_merge_by_zscore_ranks_each_paper_by_how_far_it_stands_out_of_its_own_list():
    e5 = [("e5-a", 0.90), ("e5-b", 0.89), ("e5-c", 0.88), ("e5-d", 0.87)]  # a flat list: nothing stands out
    static = [("s-a", 0.80), ("s-b", 0.40), ("s-c", 0.39), ("s-d", 0.38)]  # one clear best
    merged = merge_by_zscore([e5, static], k=6)
    ids = [paper_id for paper_id, _ in merged]
    # s-a: a lower cosine than every e5 paper, but the only paper that stands out (z 1.73 vs 1.34)
    assert ids == ["s-a", "e5-a", "e5-b", "e5-c", "s-b", "s-c"]
    scores = [score for _, score in merged]
    assert scores == sorted(scores, reverse=True)


class FakeEncoder:
    """Any text -> its own pseudo-random unit vector of the model's width."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def encode_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(f"{self.name}:{text}".encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def encode_passages(self, texts, batch_size: int = 32) -> np.ndarray:
        return np.stack([self.encode_query(text) for text in texts])


def _write(data_dir, model, paper_ids, dim, total, seed):
    vectors = np.random.default_rng(seed).standard_normal((len(paper_ids), dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    write_index(data_dir, model, paper_ids, vectors, papers_total=total, last_seq=total)


@pytest.fixture(scope="module")
def slice_dir(sample_data_dir, tmp_path_factory):
    """300 papers with abstracts, indexed, with static vectors for all of them."""
    data_dir = tmp_path_factory.mktemp("bestvector")
    papers = [paper for _, paper in Store(sample_data_dir, readonly=True).iter_papers() if paper.abstract][:300]
    store = Store(data_dir)
    store.upsert(papers)
    store.close()
    lexical.build(data_dir)
    _write(data_dir, STATIC_MODEL, [paper.id for paper in papers], 256, len(papers), seed=2)
    return data_dir, [paper.id for paper in papers]


def _retrievers(data_dir):
    service = SearchService(data_dir)
    full = DenseRetriever(data_dir, service, encoder=FakeEncoder(DEFAULT_MODEL, 384))
    first = DenseRetriever(data_dir, service, model=STATIC_MODEL, encoder=FakeEncoder(STATIC_MODEL, 256))
    return BestVectorRetriever(full, first), full, first


def test_without_e5_vectors_the_static_model_ranks_every_paper(slice_dir):
    data_dir, paper_ids = slice_dir
    best, _, first = _retrievers(data_dir)
    request = SearchRequest(query="graph neural networks", mode="semantic")
    ranked = best.retrieve(request, QUERY, k=len(paper_ids))
    assert [paper_id for paper_id, _ in ranked] == [paper_id for paper_id, _ in first.rank_text(
        "graph neural networks", ParsedQuery(), k=len(paper_ids))]
    assert {paper_id for paper_id, _ in ranked} == set(paper_ids)
    # The static pass covers every paper, and the page says they are all ranked by it.
    assert best.notices() == [("100% of papers are ranked by fast first-pass vectors until 'papersift embed' finishes "
                               "the full model")]


def test_each_paper_is_ranked_in_the_space_of_its_best_vector(slice_dir, tmp_path):
    data_dir, paper_ids = slice_dir
    with_e5 = paper_ids[::3]  # e5 has embedded a third of the papers so far
    _write(data_dir, DEFAULT_MODEL, with_e5, 384, len(paper_ids), seed=3)
    try:
        best, full, first = _retrievers(data_dir)
        request = SearchRequest(query="graph neural networks", mode="semantic")
        ranked = [paper_id for paper_id, _ in best.retrieve(request, QUERY, k=len(paper_ids))]
        assert sorted(ranked) == sorted(paper_ids)  # every paper once
        e5_order = [paper_id for paper_id, _ in full.rank_text("graph neural networks", ParsedQuery(), k=len(paper_ids))]
        assert [paper_id for paper_id in ranked if paper_id in set(with_e5)] == e5_order
        static_order = [paper_id for paper_id, _ in first.rank_text("graph neural networks", ParsedQuery(), k=len(paper_ids))]
        assert set(static_order) == set(paper_ids) - set(with_e5)  # the static side ranks only the rest
        assert [paper_id for paper_id in ranked if paper_id not in set(with_e5)] == static_order
        assert best.populations() == (len(with_e5), len(paper_ids) - len(with_e5))
        [notice] = best.notices()
        assert notice.code == "first_pass" and notice.values["share"] == 200 / 300
        # similar papers: a paper with an e5 vector gets neighbours from both spaces, never itself
        similar = best.retrieve(SearchRequest(like_id=with_e5[0], mode="semantic"), ParsedQuery(), k=40)
        similar_ids = {paper_id for paper_id, _ in similar}
        assert with_e5[0] not in similar_ids and similar_ids & set(with_e5) and similar_ids - set(with_e5)
    finally:
        shutil.rmtree(model_root(data_dir, DEFAULT_MODEL))  # leave no e5 vectors for the other tests


def test_once_e5_covers_every_paper_it_alone_answers(slice_dir, tmp_path):
    data_dir, paper_ids = slice_dir
    _write(data_dir, DEFAULT_MODEL, paper_ids, 384, len(paper_ids), seed=4)
    try:
        best, full, _ = _retrievers(data_dir)
        request = SearchRequest(query="graph neural networks", mode="semantic")
        assert best.complete() and best.model == DEFAULT_MODEL and best.notices() == []
        assert best.retrieve(request, QUERY, k=50) == full.retrieve(request, QUERY, k=50)
    finally:
        shutil.rmtree(model_root(data_dir, DEFAULT_MODEL))


def test_make_retriever_takes_the_first_pass_only_when_its_vectors_exist(tmp_path, monkeypatch, slice_dir):
    monkeypatch.setattr(dense, "_built", lambda model: True)
    data_dir = tmp_path / "empty"
    data_dir.mkdir()
    assert dense.make_retriever(data_dir, None) is None  # nothing embedded: keyword only
    _write(data_dir, DEFAULT_MODEL, ["a", "b"], 384, 2, seed=5)
    assert type(dense.make_retriever(data_dir, None)) is DenseRetriever  # as before the static model
    _write(data_dir, STATIC_MODEL, ["a", "b"], 256, 2, seed=6)
    chosen = dense.make_retriever(data_dir, None)
    assert isinstance(chosen, BestVectorRetriever) and chosen.full is not None


def test_hybrid_trusts_the_dense_side_less_while_static_vectors_rank(slice_dir):
    data_dir, paper_ids = slice_dir
    best, full, first = _retrievers(data_dir)
    assert first.dense_trust == STATIC_DENSE_TRUST < full.dense_trust == 1.0
    assert best.dense_trust == STATIC_DENSE_TRUST  # no e5 vectors yet
    with_e5 = paper_ids[::3]
    _write(data_dir, DEFAULT_MODEL, with_e5, 384, len(paper_ids), seed=7)
    try:
        best, _, _ = _retrievers(data_dir)  # a retriever looks for a new index at most once a second
        share = len(with_e5) / len(paper_ids)
        assert best.dense_trust == pytest.approx(share + (1 - share) * STATIC_DENSE_TRUST)
    finally:
        shutil.rmtree(model_root(data_dir, DEFAULT_MODEL))


def test_dense_trust_scales_only_the_dense_sides_weight():
    lexical = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("c", 0.9), ("b", 0.5), ("a", 0.1)]
    assert fuse_hybrid("graph networks", lexical, dense)[0][0] in ("a", "c")  # equal weights: a tie
    assert fuse_hybrid("graph networks", lexical, dense, dense_trust=0.5)[0][0] == "a"
    assert fuse_hybrid("graph networks", lexical, dense, dense_trust=2.0)[0][0] == "c"


def test_populations_are_counted_once_per_pair_of_generations(slice_dir, monkeypatch):
    """Hybrid asks for them on every query: counted once, recounted when e5 publishes more."""
    data_dir, paper_ids = slice_dir
    monkeypatch.setattr(semantic, "REOPEN_CHECK_S", 0.0)  # look for a new generation on every call
    _write(data_dir, DEFAULT_MODEL, paper_ids[::3], 384, len(paper_ids), seed=8)
    try:
        best, full, _ = _retrievers(data_dir)
        assert best.populations() == (len(paper_ids[::3]), len(paper_ids) - len(paper_ids[::3]))
        counted = []
        monkeypatch.setattr(type(full.index), "row_of", property(lambda index: counted.append(1) or index.__dict__["row_of"]),
                            raising=False)
        best.populations()
        assert not counted  # the same generations: nothing recounted
        monkeypatch.undo()
        monkeypatch.setattr(semantic, "REOPEN_CHECK_S", 0.0)
        _write(data_dir, DEFAULT_MODEL, paper_ids[::2], 384, len(paper_ids), seed=9)
        assert best.populations() == (len(paper_ids[::2]), len(paper_ids) - len(paper_ids[::2]))
    finally:
        shutil.rmtree(model_root(data_dir, DEFAULT_MODEL))


def test_the_floor_leaves_out_papers_without_changing_how_the_rest_merge(slice_dir):
    """The merge standardises each model's list whole; the floor then drops e5's papers under it.
    (Merging a list cut at the floor gave its papers other z-scores and so another order.)"""
    data_dir, paper_ids = slice_dir
    with_e5 = paper_ids[::3]
    _write(data_dir, DEFAULT_MODEL, with_e5, 384, len(paper_ids), seed=10)
    try:
        service = SearchService(data_dir)
        first = DenseRetriever(data_dir, service, model=STATIC_MODEL, encoder=FakeEncoder(STATIC_MODEL, 256))
        unfloored = DenseRetriever(data_dir, service, encoder=FakeEncoder(DEFAULT_MODEL, 384), floor=None)
        e5_scores = dict(unfloored.rank_text("graph neural networks", ParsedQuery(), k=len(paper_ids)))
        floor = sorted(e5_scores.values(), reverse=True)[len(e5_scores) // 4]  # a quarter of e5's papers clear it
        floored = DenseRetriever(data_dir, service, encoder=FakeEncoder(DEFAULT_MODEL, 384), floor=floor)
        request = SearchRequest(query="graph neural networks", mode="semantic")
        whole = BestVectorRetriever(unfloored, first).retrieve(request, QUERY, k=len(paper_ids))
        first.outside = floored
        kept = BestVectorRetriever(floored, first).retrieve(request, QUERY, k=len(paper_ids))
        assert kept == [(paper_id, score) for paper_id, score in whole
                        if paper_id not in e5_scores or e5_scores[paper_id] >= floor]
        assert 0 < sum(paper_id in e5_scores for paper_id, _ in kept) < len(with_e5)
    finally:
        shutil.rmtree(model_root(data_dir, DEFAULT_MODEL))
