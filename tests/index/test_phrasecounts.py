"""Phrase counting in bounded memory: the counts and spellings a plain in-memory count gives,
with the corpus cut into many blocks and partitions, and no corpus held in memory."""

from __future__ import annotations

import os
import random
import re
import tracemalloc
from collections import Counter, defaultdict

import pytest
from tests.index.phrase_counting import count_phrases

from papersift.index.phrasecounts import WORK_PREFIX, _clause_tokens, counted_phrases
from papersift.index.termlexicon import build_lexicon


def reference_count(texts: list[str], min_papers: int, max_words: int, samples: int = 16) -> dict[str, tuple[str, int]]:
    """Every gram of up to `max_words` words within a clause counted at once (a gram's papers
    never exceed its parts', so the pruned count keeps the same ones); the spelling: of the
    first `samples` occurrences in corpus order, the most common without words between the
    phrase's words, else the most common (ties: the first seen)."""
    papers: Counter[tuple[str, ...]] = Counter()
    spellings: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for text in texts:
        found = set()
        for clause in _clause_tokens(text):
            for size in range(1, max_words + 1):
                for at in range(len(clause) - size + 1):
                    gram = tuple(stem for stem, _, _ in clause[at:at + size])
                    found.add(gram)
                    if len(spellings[gram]) < samples:
                        spellings[gram].append(text[clause[at][1]:clause[at + size - 1][2]].lower())
        papers.update(found)
    result = {}
    for gram, count in papers.items():
        if count < min_papers:
            continue
        seen = Counter(spellings[gram])
        ranked = sorted(seen, key=lambda spelling: -seen[spelling])  # stable: first seen first on a tie
        plain = [spelling for spelling in ranked if len(re.split(r"[\s\-]+", spelling)) == len(gram)]
        result[" ".join(gram)] = ((plain or ranked)[0], count)
    return result


@pytest.fixture(scope="module")
def fixture_texts(sample_records) -> list[str]:
    return [f"{paper['title']}. {paper.get('abstract') or ''}" for paper in sample_records]


@pytest.mark.parametrize("min_papers", [2, 5])
def test_counts_in_blocks_and_partitions_equal_a_plain_count(fixture_texts, tmp_path, min_papers):
    # ~90 blocks of papers and ~10 partitions: every boundary a plain count does not have
    counted = count_phrases(fixture_texts, min_papers=min_papers, work_dir=tmp_path, block_tokens=5_000,
                            partition_rows=50_000)
    expected = reference_count(fixture_texts, min_papers, 4)
    assert len(counted) > 10_000 // min_papers
    assert counted == expected
    assert list(tmp_path.iterdir()) == []  # the work folder is gone


def test_a_corpus_without_words_has_no_phrases(tmp_path):
    assert count_phrases(["", "...", "(;)"], work_dir=tmp_path) == {}
    assert count_phrases([], work_dir=tmp_path) == {}


def test_the_work_folder_is_removed_when_reading_the_texts_fails(tmp_path):
    def texts():
        yield "graph networks"
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        build_lexicon(tmp_path, texts(), {}, 2, 1)
    assert list(tmp_path.iterdir()) == []  # no work folder, no staging file, no lexicon


def test_a_work_folder_a_killed_build_left_is_removed_by_the_next(tmp_path):
    abandoned = tmp_path / f"{WORK_PREFIX}{2**30}.x1"  # no process has that id (Linux pids stay below 2**22)
    running = tmp_path / f"{WORK_PREFIX}{os.getppid()}.x2"  # a live process's: still counting
    for folder in (abandoned, running):
        folder.mkdir()
        (folder / "ids").write_bytes(b"x")
    count_phrases(["graph networks", "graph networks"], work_dir=tmp_path)
    assert sorted(tmp_path.iterdir()) == [running]


def test_the_count_holds_no_corpus_in_memory(tmp_path):
    """Texts made as they are read, of 10,000 invented words: a count that keeps the texts (their
    size), their tokens (12 bytes each) or every distinct pair of words peaks far above their
    size; the streamed one keeps the vocabulary, a block, a partition and the phrases kept."""
    pick = random.Random(7)
    vocabulary = ["".join(pick.choice("bcdfghjklmnpqrstvwz") + pick.choice("aeiou") for _ in range(8)) for _ in range(10_000)]

    def texts():
        chosen = random.Random(11)
        for _ in range(8_000):
            yield " ".join(chosen.choice(vocabulary) for _ in range(50))

    corpus_bytes = sum(len(text) for text in texts())
    tracemalloc.start()
    try:
        with counted_phrases(texts(), work_dir=tmp_path, block_tokens=5_000, partition_rows=20_000) as counted:
            phrases = sum(1 for _ in counted.rows(2, 4))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert phrases > 5_000
    assert peak < corpus_bytes, f"peak {peak:,} bytes for {corpus_bytes:,} bytes of texts"


def test_counted_corpus_knows_its_papers_and_chinese_ones(tmp_path):
    with counted_phrases(["graph networks", "图神经网络 graph networks", ""], work_dir=tmp_path) as counted:
        assert (counted.papers, counted.chinese_papers) == (3, 1)
        assert {key: papers for key, _, papers in counted.rows(2, 4)} == {
            "graph": 2, "network": 2, "graph network": 2}
