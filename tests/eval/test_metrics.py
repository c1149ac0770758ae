"""Metrics agree with hand-checkable definitions; queries without results count as zero."""

from __future__ import annotations

import math

import pytest

from papersift.eval.metrics import mean_over, per_query


def test_metrics_match_their_definitions():
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    run = {"q1": {"d9": 3.0, "d1": 2.0}, "q2": {"d3": 1.0}}
    values = per_query(qrels, run)
    assert values["mrr@10"] == {"q1": 0.5, "q2": 1.0}
    assert values["recall@10"] == {"q1": 0.5, "q2": 1.0}
    ideal = 2 / math.log2(2) + 1 / math.log2(3)  # trec_eval (and BEIR) gains are the grades
    assert values["ndcg@10"]["q1"] == pytest.approx((1 / math.log2(3)) / ideal)


def test_a_query_with_no_results_scores_zero():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    values = per_query(qrels, {"q1": {"d1": 1.0}, "q2": {}})
    assert mean_over(values, ["q1", "q2"])["mrr@10"] == 0.5
