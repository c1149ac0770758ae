"""The learned ranker (issue 31): trained on the fixture corpus's pseudo-queries, it must beat
BM25 alone on the held-back ones; without a usable model hybrid search ranks exactly as the
fusion does. Vectors are pseudo-random (tests/hybrid_service.py): no model is loaded. The
training tests run a few hundred hybrid queries and fit LightGBM (~1 min idle, 4 min at load
15): drill tier, as the topic classifier's training is."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import orjson
import pytest

from hybrid_service import add_vectors_and_bridge, hybrid_service
from papersift.search import rank_train
from papersift.search.rank_features import FEATURE_VERSION, FEATURES
from papersift.search.ranker import LearnedRanker, model_paths, reordered
from papersift.search.types import SearchRequest
from search.conftest import indexed_copy

QUERIES = 300


@pytest.fixture(scope="module")
def ranked_dir(sample_data_dir, tmp_path_factory):
    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("ranked"))
    add_vectors_and_bridge(data_dir)
    return data_dir


@pytest.fixture(scope="module")
def trained(ranked_dir):
    """The fixture corpus's pseudo-queries, collected once; a model trained on them and written."""
    service, _, retrievers = hybrid_service(ranked_dir)
    retriever = retrievers["hybrid"].inner
    collected = rank_train.collect(rank_train.draw(ranked_dir, service.backend, QUERIES, 1, glossary=[]),
                                   retriever, service.backend)
    booster, report = rank_train.learn(*collected, seed=1)
    rank_train._write(ranked_dir, booster, {"active": True, "feature_version": FEATURE_VERSION,
                                            "features": list(FEATURES), "papers": service.backend.document_count()})
    return service, retriever, report, collected


@pytest.mark.drill
def test_trained_model_beats_bm25_alone_on_held_back_pseudo_queries(trained):
    _, _, report, _ = trained
    held_back = report.held_back
    assert sum(report.queries.values()) >= 200
    assert held_back["learned"]["all"] > held_back["bm25"]["all"] + 0.01, held_back
    assert held_back["learned"]["all"] > held_back["fusion"]["all"] + 0.01, held_back


@pytest.mark.drill
def test_a_learner_given_wrong_labels_does_not_beat_bm25(trained):
    """The check above can fail: with each training query's label moved to a random candidate,
    the same learner loses to BM25 alone (the held-back labels stay true)."""
    _, _, _, (groups, dropped) = trained
    rng = np.random.default_rng(3)
    broken = [group if group.query.held_back else replace(group, labels=rng.permutation(group.labels))
              for group in groups]
    _, report = rank_train.learn(broken, dropped, seed=1)
    assert report.held_back["learned"]["all"] < report.held_back["bm25"]["all"], report.held_back


@pytest.mark.drill
def test_rank_train_writes_a_model_for_this_corpus(ranked_dir, tmp_path):
    service, _, retrievers = hybrid_service(ranked_dir)
    copy = tmp_path / "copy"
    shutil.copytree(ranked_dir, copy, ignore=shutil.ignore_patterns("ranker"))
    report = rank_train.train(copy, retrievers["hybrid"].inner, service.backend, 60, seed=2, glossary=[],
                              activate=False)
    meta = orjson.loads(model_paths(copy)[1].read_bytes())
    assert meta["papers"] == 1996 and meta["active"] is False and meta["held_back_mrr10"] == report.held_back
    assert meta["features"] == list(FEATURES) and model_paths(copy)[0].stat().st_size > 1000


def ranking(service, text: str) -> list[tuple[str, float]]:
    return service.ranking(SearchRequest(query=text, mode="hybrid", with_facets=False), 50)


TEXTS = ["graph neural networks for molecules", "we propose a new method for reinforcement learning with sparse rewards",
         "attention", "bayesian optimization of hyperparameters"]


@pytest.mark.drill
def test_without_a_usable_model_hybrid_ranks_as_the_fusion(trained, ranked_dir, tmp_path):
    service, retriever, _, _ = trained
    retriever.ranker = None
    fused = [ranking(service, text) for text in TEXTS]
    retriever.ranker = LearnedRanker(tmp_path)  # a data dir without a model
    assert [ranking(service, text) for text in TEXTS] == fused
    model, meta = model_paths(ranked_dir)
    stale = tmp_path / "ranker"
    stale.mkdir()
    (stale / model.name).write_bytes(model.read_bytes())
    described = orjson.loads(meta.read_bytes())
    for changed in ({"papers": 5000}, {"feature_version": -1}, {"active": False}):
        (stale / meta.name).write_bytes(orjson.dumps({**described, **changed}))
        assert [ranking(service, text) for text in TEXTS] == fused, changed
    retriever.ranker = LearnedRanker(ranked_dir)  # the trained model re-orders the head
    learned = [ranking(service, text) for text in TEXTS]
    assert learned != fused
    retriever.ranker = None


def test_reordered_keeps_every_paper_once_with_decreasing_scores():
    fused = [("a", 3.0), ("b", 2.0), ("c", 1.0), ("d", 0.5)]
    ranked = reordered(fused, ["a", "b", "c"], np.array([0.1, 0.9, 0.5]))
    assert [paper_id for paper_id, _ in ranked] == ["b", "c", "a", "d"]
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True)
