"""Term pairs aligned from documents in both languages (index/glossary_align.py)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from papersift.index import glossary_align
from papersift.index.termlexicon import analyzed
from papersift.ingest.glossary_sources import DocumentPair

PHRASES = {analyzed(text): text for text in ("gradient descent", "learning rate", "loss function", "model")}
# what the encoder "knows": each Chinese term next to its twin, the rest scattered
SAME = {"梯度下降": "gradient descent", "学习率": "learning rate", "损失函数": "loss function", "模型": "model"}


def encode(texts: list[str]) -> np.ndarray:
    rows = []
    for text in texts:
        seed = sum(map(ord, SAME.get(text, text)))
        rows.append(np.random.default_rng(seed).normal(size=32))
    return np.array(rows)


def documents(*pairs: tuple[str, str]) -> list[DocumentPair]:
    return [DocumentPair(zh, en, "docs", f"doc{at}.md", "docs") for at, (zh, en) in enumerate(pairs)]


def test_a_term_and_its_twin_in_the_same_documents_align():
    found = glossary_align.align(documents(
        ("我们用梯度下降更新模型，学习率很小。", "We update the model by gradient descent; the learning rate is small."),
        ("梯度下降需要学习率。", "Gradient descent needs a learning rate."),
        ("损失函数衡量误差。", "The loss function measures the error."),
    ), PHRASES, encode)
    pairs = {(candidate.zh, candidate.en) for candidate in found}
    assert ("梯度下降", "gradient descent") in pairs and ("学习率", "learning rate") in pairs
    # in one document pair only: too little evidence
    assert not [candidate for candidate in found if candidate.zh == "损失函数"]
    assert {candidate.how for candidate in found} == {"parallel"}
    assert {candidate.source for candidate in found} == {"docs"}


def test_the_twin_must_be_in_most_documents_of_the_term():
    found = glossary_align.align(documents(
        ("梯度下降。", "Gradient descent."),
        ("梯度下降。", "Something else."),
        ("梯度下降。", "Nothing here."),
        ("梯度下降。", "Gradient descent again."),
    ), PHRASES, encode)
    # 2 of 4 documents: under MIN_SHARE
    assert found == []


def test_a_candidate_mostly_inside_a_longer_word_is_a_fragment():
    contexts = {"器生成模型": ({"成": 3}, {"。": 3}), "神经网络": ({"的": 2, "和": 1, "用": 1}, {"。": 2, "模": 2}),
                "梯度下降": ({"": 2}, {"更": 1, "需": 1})}  # next to other words: no fragment
    found = glossary_align.fragments({term: (Counter(a), Counter(b)) for term, (a, b) in contexts.items()})
    assert found == {"器生成模型"}


def test_mutual_nearest_keeps_pairs_nearest_both_ways():
    zh = np.array([[1.0, 0.0], [0.9, 0.1]])
    en = np.array([[1.0, 0.0], [0.0, 1.0]])
    near, scores, mutual = glossary_align.mutual_nearest(zh, en, k=1)
    assert near[:, 0].tolist() == [0, 0]  # both Chinese rows are nearest the first English row
    assert scores[:, 0].tolist() == pytest.approx([1.0, 0.9])
    assert mutual == {(0, 0), (1, 1)}  # each English row's nearest Chinese row
    # so only (0, 0) is nearest both ways: the second Chinese row has no mutual partner
    assert [(row, int(near[row, 0])) for row in range(2) if (row, int(near[row, 0])) in mutual] == [(0, 0)]
