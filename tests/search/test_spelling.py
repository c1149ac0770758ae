"""Spelling suggestions over the corpus vocabulary (search/spelling.py)."""

from __future__ import annotations

from papersift.index import vocabulary
from papersift.search import spelling
from papersift.search.spelling import Speller

TEXTS = ["transformer attention " * 3] * 30 + ["transformre"]


def test_a_rare_word_close_to_a_common_one_is_corrected(tmp_path):
    vocabulary.build(tmp_path, TEXTS, total=len(TEXTS), last_seq=len(TEXTS))
    assert Speller(tmp_path).suggest("transformre attention") == "transformer attention"


def test_a_query_without_a_latin_word_never_reads_the_vocabulary(tmp_path, monkeypatch):
    """A Chinese query has nothing to correct: the vocabulary (~0.08 s to read) stays unread."""
    vocabulary.build(tmp_path, TEXTS, total=len(TEXTS), last_seq=len(TEXTS))
    read: list[object] = []
    monkeypatch.setattr(spelling, "read", lambda data_dir: read.append(data_dir) or {})
    assert Speller(tmp_path).suggest("汉明距离 的 应用") is None
    assert read == []
