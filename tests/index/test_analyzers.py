"""Index and query analysis agree: stemming, stop words, folding, jieba for CJK."""

from __future__ import annotations

from papersift.index.analyzers import NAMES, has_cjk, positioned_terms, segment_cjk, terms


def test_english_terms_are_stemmed_folded_and_stop_words_dropped():
    assert terms("The Networks of Döring are Learning") == ["network", "dore", "learn"]


def test_phrase_positions_keep_stop_word_gaps():
    assert positioned_terms("learning to rank") == [(0, "learn"), (2, "rank")]


def test_names_are_folded_not_stemmed():
    assert terms("Leif Döring", NAMES) == ["leif", "doring"]


def test_chinese_is_segmented_with_jieba_and_latin_text_untouched():
    assert segment_cjk("graph neural networks") == "graph neural networks"
    assert has_cjk("图神经网络") and not has_cjk("Döring")
    words = terms("基于深度学习的图神经网络 GNN")
    assert "神经网络" in words and "gnn" in words and "基于深度学习的图神经网络" not in words
