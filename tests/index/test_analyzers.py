"""Index and query analysis agree: stemming, stop words, folding, jieba for CJK."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


def _word_by_word(text: str, analyzer_name: str):
    from papersift.index.analyzers import _tokens_word_by_word, analyzers

    return _tokens_word_by_word(analyzers()[analyzer_name], text)


def test_tokens_word_by_word_equal_tantivys_pre_tokenize_on_the_fixture_corpus():
    """The Python 3.10 path (tantivy 0.26, no pre_tokenize) must give the tokens tantivy 0.27
    gives, positions and spans included, or phrases would not match what was indexed."""
    import gzip
    import json
    from pathlib import Path

    from papersift.index.analyzers import ENGLISH, tokens

    corpus = Path(__file__).resolve().parents[2] / "src" / "papersift" / "sample_corpus" / "papers.jsonl.gz"
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        texts = [f"{row.get('title', '')} {row.get('abstract', '')}" for row in map(json.loads, lines)]
    assert len(texts) > 1000
    for text in texts:
        for analyzer_name in (ENGLISH, NAMES):
            assert tokens(text, analyzer_name) == _word_by_word(text, analyzer_name), text[:80]


# Known differences, left out: characters this Python's Unicode database does not assign (Cn;
# tantivy's may be newer), and characters Rust counts as alphabetic that are not letters to
# Python: vowel signs of Indic scripts (Mc/Mn: "क्षि" is "क", "षि" there, "क", "ष" here) and
# enclosed letters (So: Ⓐ, 🄰). None occurs in English or Chinese paper text.
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn", "Mc", "Mn", "So")), max_size=80))
def test_tokens_word_by_word_equal_pre_tokenize_on_any_text(text):
    from papersift.index.analyzers import ENGLISH, tokens

    assert tokens(text, ENGLISH) == _word_by_word(text, ENGLISH)
