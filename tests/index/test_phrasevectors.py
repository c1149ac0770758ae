"""The phrase vectors' build: the term lexicon's term-like phrases embedded and published."""

from __future__ import annotations

import hashlib

import numpy as np

from papersift.index import vectors as vector_index
from papersift.index.phrasevectors import (
    DIM,
    PHRASES_MODEL,
    build_phrase_vectors,
    is_stale,
    is_term_like,
)
from papersift.index.termlexicon import build_lexicon

PAPERS = [
    *[f"Reinforcement learning from human feedback, study {n}" for n in range(4)],
    *[f"Transfer learning for vision, part {n}" for n in range(2)],
    "A one-off wording of nothing",
]


def fake_encode(texts: list[str]) -> np.ndarray:
    """A unit vector per text, seeded by the text (the real model is tested in tests/search)."""
    rows = [np.random.default_rng(int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)).normal(size=DIM)
            for text in texts]
    rows = np.array(rows, dtype=np.float32).reshape(len(texts), DIM)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_function_words_at_either_end_make_no_term():
    assert is_term_like("reinforcement learning") and is_term_like("over-smoothing")
    assert not is_term_like("reinforcement learning from") and not is_term_like("up reinforcement learning")
    assert not is_term_like("2019") and not is_term_like("")


def test_phrases_used_often_enough_are_embedded_and_published(tmp_path):
    build_lexicon(tmp_path, PAPERS, {}, len(PAPERS), 3)
    stats = build_phrase_vectors(tmp_path, fake_encode, min_papers=2)
    index = vector_index.VectorIndex.open(tmp_path, PHRASES_MODEL)
    keys = set(index.paper_ids)
    assert stats.phrases == len(index) == len(keys)
    assert {"reinforc learn", "transfer learn", "human feedback"} <= keys
    assert "reinforc learn from" not in keys  # ends with a function word
    assert "one-off word" not in keys  # in one paper only
    assert np.allclose(np.linalg.norm(index.vectors, axis=1), 1.0, atol=1e-5)
    row = index.paper_ids.index("transfer learn")
    assert np.allclose(index.vectors[row], fake_encode(["transfer learning"])[0])  # the spelling papers use


def test_phrase_vectors_are_stale_once_the_lexicon_was_rebuilt(tmp_path):
    build_lexicon(tmp_path, PAPERS, {}, len(PAPERS), 3)
    assert is_stale(tmp_path)  # not built yet
    build_phrase_vectors(tmp_path, fake_encode, min_papers=2)
    assert not is_stale(tmp_path)
    build_lexicon(tmp_path, [*PAPERS, "Transfer learning again"], {}, len(PAPERS) + 1, 4)
    assert is_stale(tmp_path)


def test_without_a_lexicon_there_is_nothing_to_embed(tmp_path):
    assert build_phrase_vectors(tmp_path, fake_encode) is None
    assert not is_stale(tmp_path)
    assert vector_index.current_generation(tmp_path, PHRASES_MODEL) is None


def test_a_build_keeps_the_most_used_phrases_up_to_its_cap(tmp_path):
    build_lexicon(tmp_path, PAPERS, {}, len(PAPERS), 3)
    every = build_phrase_vectors(tmp_path, fake_encode, min_papers=2)
    all_keys = vector_index.VectorIndex.open(tmp_path, PHRASES_MODEL).paper_ids
    assert every is not None and every.phrases > 3
    capped = build_phrase_vectors(tmp_path, fake_encode, min_papers=2, limit=3)
    index = vector_index.VectorIndex.open(tmp_path, PHRASES_MODEL)
    assert capped is not None and capped.phrases == len(index) == 3
    assert index.paper_ids == all_keys[:3]  # the most used first, as the full build orders them
    assert "learn" in index.paper_ids and "transfer learn" not in index.paper_ids  # in 6 papers; in 2
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".phrasevectors-")]  # scratch removed


def test_vectors_are_written_block_by_block(tmp_path, monkeypatch):
    """Blocks of BATCH phrases each reach the file as they are encoded, in order."""
    from papersift.index import phrasevectors

    monkeypatch.setattr(phrasevectors, "BATCH", 2)
    build_lexicon(tmp_path, PAPERS, {}, len(PAPERS), 3)
    calls: list[int] = []

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return fake_encode(texts)

    stats = build_phrase_vectors(tmp_path, counting, min_papers=2)
    index = vector_index.VectorIndex.open(tmp_path, PHRASES_MODEL)
    assert stats is not None and max(calls) <= 2 and sum(calls) == stats.phrases == len(index)
    keys = index.paper_ids
    surfaces = dict(phrasevectors.lexicon_phrases(tmp_path, 2))
    assert np.allclose(index.vectors, fake_encode([surfaces[key] for key in keys]))
