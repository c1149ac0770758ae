"""Hybrid fusion: z-score sums against ranx, and query-dependent trust in each side."""

from __future__ import annotations

import pytest

from papersift.search.fusion import cjk_fraction, fuse_hybrid, fusion_weights, standardized, zscore_sum

LEXICAL = ["a", "b", "c", "d"]
DENSE = ["c", "e", "a", "f", "g"]


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
    lexical = [("lex1", 9.0), ("both", 8.8), ("lex2", 4.0)]
    dense = [("dense1", 0.90), ("both", 0.89), ("dense2", 0.80)]
    ranked = [doc for doc, _ in fuse_hybrid("图神经网络 GNN 过平滑", lexical, dense)]
    assert ranked[0] == "both"
    assert ranked.index("dense1") < ranked.index("lex1")
    chinese = dict(fuse_hybrid("图神经网络 GNN 过平滑", lexical, dense))
    english = dict(fuse_hybrid("graph neural network GNN oversmoothing", lexical, dense))
    assert chinese["dense1"] - chinese["lex1"] > english["dense1"] - english["lex1"]


@pytest.mark.drill
def test_zscore_sum_matches_ranx_when_both_sides_score_every_paper():
    from ranx import Run, fuse

    lexical = [("a", 12.0), ("b", 7.5), ("c", 7.0), ("d", 1.0)]
    dense = [("c", 0.91), ("a", 0.85), ("d", 0.84), ("b", 0.60)]
    runs = [Run({"q": dict(scored)}) for scored in (lexical, dense)]
    reference = fuse(runs, norm="zmuv", method="wsum", params={"weights": [0.7, 1.0]}).to_dict()["q"]
    ours = dict(zscore_sum([lexical, dense], [0.7, 1.0]))
    assert ours.keys() == reference.keys()
    for doc, score in ours.items():
        assert score == pytest.approx(reference[doc])


def test_a_paper_missing_from_one_side_gets_that_sides_lowest_score():
    lexical = [("a", 10.0), ("b", 5.0), ("c", 0.0)]
    dense = [("z", 0.9), ("a", 0.5)]
    fused = dict(zscore_sum([lexical, dense]))
    lexical_z = dict(zip("abc", standardized([10.0, 5.0, 0.0])))
    assert fused["z"] == pytest.approx(lexical_z["c"] + 1.0)  # dense z-scores of two values: +1, -1
    assert fused["b"] == pytest.approx(lexical_z["b"] - 1.0)
    assert list(standardized([3.0, 3.0])) == [0.0, 0.0]


def test_a_sure_lexical_side_carries_its_paper_where_ranks_would_not():
    # BM25 is far more certain of "exact" than of anything else; the dense side mildly prefers "near"
    lexical = [("exact", 30.0), ("near", 6.0), ("x", 5.9), ("y", 5.8)]
    dense = [("near", 0.86), ("exact", 0.85), ("x", 0.84), ("y", 0.83)]
    assert fuse_hybrid("adam optimizer", lexical, dense)[0][0] == "exact"


def test_one_weight_per_list():
    with pytest.raises(ValueError, match="weights"):
        zscore_sum([[("x", 1.0)]], [1.0, 1.0])


def test_a_chinese_querys_reading_counts_more_than_the_dense_side():
    # the reading's phrases (keyword list of the carry-over) name the term as papers write it; e5's
    # neighbours of a short Chinese term are looser: where they disagree, the reading's best leads
    translated = [("read1", 12.0), ("both", 7.0), ("read2", 5.0), ("read3", 4.0)]
    dense = [("dense1", 0.90), ("both", 0.86), ("dense2", 0.85), ("dense3", 0.84)]
    assert fusion_weights("超参数优化").translated > fusion_weights("超参数优化").dense
    ranked = [doc for doc, _ in fuse_hybrid("超参数优化", [], dense, translated)]
    assert ranked[:2] == ["read1", "dense1"]
