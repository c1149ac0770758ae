"""Hybrid fusion: weighted RRF against ranx's RRF, and query-dependent trust in each side."""

from __future__ import annotations

import pytest

from papersift.search.fusion import cjk_fraction, fuse_hybrid, fusion_weights, rrf

LEXICAL = ["a", "b", "c", "d"]
DENSE = ["c", "e", "a", "f", "g"]


def test_plain_rrf_matches_ranx():
    from ranx import Run, fuse

    runs = [Run({"q": {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}}) for ranked in (LEXICAL, DENSE)]
    reference = fuse(runs, norm=None, method="rrf", params={"k": 60}).to_dict()["q"]
    ours = dict(rrf([LEXICAL, DENSE], k=60))
    assert ours.keys() == reference.keys()
    for doc, score in ours.items():
        assert score == pytest.approx(reference[doc])


def test_weights_scale_each_side():
    fused = dict(rrf([["x"], ["y"]], [2.0, 1.0], k=0))
    assert fused == {"x": 2.0, "y": 1.0}
    with pytest.raises(ValueError, match="weights"):
        rrf([["x"]], [1.0, 1.0])


def test_cjk_fraction():
    assert cjk_fraction("graph neural networks") == 0.0
    assert cjk_fraction("图神经网络的过平滑问题") == 1.0
    assert 0.2 < cjk_fraction("LoRA 低秩 适配 大模型微调") < 0.9
    assert cjk_fraction("2024 !!") == 0.0


def test_chinese_queries_lean_on_the_dense_side():
    english, mixed, chinese = (fusion_weights(q) for q in ("low rank adaptation", "LoRA 低秩适配", "低秩适配大模型"))
    assert english.lexical > mixed.lexical > chinese.lexical
    assert english.dense == mixed.dense == chinese.dense
    assert fusion_weights("low rank adaptation", lexical_hits=1).lexical < english.lexical


def test_chinese_query_ranks_the_dense_winner_first():
    # the lexical side matched only an English token of the query; the dense side understood it
    ranked = [doc for doc, _ in fuse_hybrid("图神经网络 GNN 过平滑", ["lex1", "lex2", "both"], ["dense1", "both", "dense2"])]
    assert ranked[0] == "both" and ranked[1] == "dense1"
