"""`papersift eval` ranks every query exactly as /api/search (and /similar) answers it, in
every mode: the same request builder, the same SearchService path."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from tests.search.conftest import indexed_copy

from hybrid_service import add_vectors_and_bridge, hybrid_service, unit_vector
from papersift.eval.datasets import EvalQuery
from papersift.eval.runner import evaluate, rank_query
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

QUERIES = [
    "graph neural networks",
    "  attention transformers  ",  # padded as people paste it
    "regret bounds for contextual bandits",  # long enough that no paper has every word: relaxed
    "强化学习 策略梯度",  # Chinese: carried over to English in keyword mode
    "图神经网络",
    "diffusion 生成模型",
    "\"neural networks\" -survey",
]


@pytest.fixture(scope="module")
def served(sample_data_dir, tmp_path_factory):
    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("parity"))
    add_vectors_and_bridge(data_dir)
    service, _, retrievers = hybrid_service(data_dir)
    with TestClient(create_app(data_dir, service=service, allowed_hosts=TEST_HOSTS), raise_server_exceptions=True) as client:
        yield service, client, retrievers, data_dir


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_eval_ranks_as_the_api_does(served, mode):
    service, client, *_ = served
    for number, text in enumerate(QUERIES):
        body = client.get("/api/search", params={"q": text, "mode": mode, "size": 100}).json()
        api_ids = [hit["paper"]["id"] for hit in body["hits"]]
        assert api_ids, f"{text!r} found nothing in {mode} mode"
        assert rank_query(service, EvalQuery(f"q{number}", text), mode, 100) == api_ids, (mode, text)


def test_eval_scores_what_the_api_ranks(served):
    # the metric follows: each query's first API hit, judged relevant, gives MRR@10 1.0
    service, client, *_ = served
    queries = [EvalQuery(f"q{number}", text, "zh" if number >= 3 else "en") for number, text in enumerate(QUERIES)]
    qrels = {query.id: {client.get("/api/search", params={"q": query.text, "mode": "keyword"}).json()["hits"][0]
                        ["paper"]["id"]: 1} for query in queries}
    result = evaluate(service, queries, qrels, "keyword")
    assert result.metrics["lang=zh"]["mrr@10"] == result.metrics["lang=en"]["mrr@10"] == 1.0


def like_paper_ranking(served, mode: str) -> tuple[str, list[str]]:
    """A paper and the first 10 others `eval --like paper` ranks for it in `mode`; checks that
    the mode's own retriever ranked them (each mode's is counted), no other."""
    service, client, retrievers, _ = served
    paper_id = client.get("/api/search", params={"q": "graph neural networks", "mode": "keyword"}).json()["hits"][0][
        "paper"]["id"]
    before = {name: retriever.calls for name, retriever in retrievers.items()}
    ranked = rank_query(service, EvalQuery("p", paper_id, exclude_ids=frozenset({paper_id})), mode, 11, like="paper")
    assert {name: retriever.calls - before[name] for name, retriever in retrievers.items()} == {
        name: int(name == mode) for name in retrievers}
    return paper_id, [found for found in ranked if found != paper_id][:10]


def test_eval_like_paper_in_hybrid_mode_ranks_as_the_similar_papers_api(served):
    client = served[1]
    paper_id, ranked = like_paper_ranking(served, "hybrid")
    similar = [hit["paper"]["id"] for hit in client.get(f"/api/papers/{paper_id}/similar", params={"size": 10}).json()["hits"]]
    assert len(similar) == 10 and ranked == similar


def test_eval_like_paper_in_semantic_mode_ranks_the_papers_by_cosine_to_its_vector(served):
    # the reference is numpy over the vectors the fixture wrote (hybrid_service.add_vectors_and_bridge)
    paper_id, ranked = like_paper_ranking(served, "semantic")
    store = Store(served[3], readonly=True)
    ids = [paper.id for _, paper in store.iter_papers()]
    store.close()
    scores = np.stack([unit_vector("paper " + other) for other in ids]) @ unit_vector("paper " + paper_id)
    nearest = [ids[row] for row in np.lexsort((np.arange(len(ids)), -scores)) if ids[row] != paper_id][:10]
    assert ranked == nearest


def test_a_query_the_api_refuses_ranks_nothing_and_is_counted(served):
    service, client, *_ = served
    assert client.get("/api/search", params={"q": '"unclosed phrase', "mode": "keyword"}).status_code == 400
    queries = [EvalQuery("bad", '"unclosed phrase'), EvalQuery("good", "graph neural networks")]
    result = evaluate(service, queries, {"bad": {"x": 1}, "good": {"y": 1}}, "keyword")
    assert result.refused == 1 and result.queries == 2
