"""Term pairs aligned from documents that exist in both languages (the glossary's `parallel` readings).

A translated documentation page and its English original use the same terms: a Chinese term
and its English twin occur in the same pairs of documents. Here a pair is kept when three
things agree:

- meaning: the English phrase is among the MUTUAL nearest (multilingual e5 cosine) of the
  Chinese term, and the Chinese term among the MUTUAL nearest Chinese terms of the phrase;
- documents: the phrase occurs in the English twins of at least MIN_SHARE of the documents
  that hold the Chinese term, and of at least MIN_DOCUMENTS of them;
- the corpus: the English side is a phrase papers use (the term lexicon's phrases in at least
  MIN_PAPERS papers), so the glossary never maps to a spelling no paper has.

Chinese candidates are jieba's words and runs of up to MAX_WORDS of them (2-8 characters, no
function word among them, not mostly a part of a longer word: fragments()) in at least
MIN_DOCUMENTS documents; English candidates are the 1-3 word term-like corpus phrases
(index/phrasevectors.is_term_like) of the English twins in at least MIN_DOCUMENTS documents.
The nearest are found with the encoder given (the build uses USE-m3, which reads short terms
better than e5 and embeds ~1,800 phrases/s on one thread: docs/crosslingual.md).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from papersift.index.analyzers import cjk_word_spans, terms
from papersift.index.phrasevectors import lexicon_phrases
from papersift.ingest.glossary_sources import BOUNDARY_WORDS, PARALLEL, Candidate, DocumentPair

MIN_PAPERS = 5
MIN_DOCUMENTS = 2
MIN_SHARE = 0.6
MUTUAL = 5
MAX_WORDS = 3
MAX_ENGLISH_WORDS = 3
FRAGMENT_SHARE = 0.8
CHUNK_ROWS = 1024
_ALL_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,8}")
_HAN_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def corpus_phrases(data_dir: Path, min_papers: int = MIN_PAPERS) -> dict[str, str]:
    """Phrase key -> most common spelling, for the term-like phrases (no function word at either
    end) of at least min_papers papers in a data dir's term lexicon."""
    return dict(lexicon_phrases(data_dir, min_papers))


def chinese_terms(text: str) -> Iterator[tuple[str, str, str]]:
    """Candidate Chinese terms of a text, each occurrence with the characters before and after
    it: jieba words and runs of adjacent words."""
    spans = cjk_word_spans(text)
    for at in range(len(spans)):
        joined, first, last_end = "", spans[at][0], spans[at][0]
        for start, stop, part in spans[at:at + MAX_WORDS]:
            if start != last_end or part in BOUNDARY_WORDS:
                break
            joined, last_end = joined + part, stop
            if _ALL_HAN.fullmatch(joined):
                yield joined, text[first - 1:first], text[last_end:last_end + 1]


def fragments(contexts: dict[str, tuple[Counter[str], Counter[str]]]) -> set[str]:
    """Candidates that are mostly part of a longer word: FRAGMENT_SHARE or more of their
    occurrences follow (or precede) the same Chinese character, not a function word ("器生成模型"
    in "生成器生成模型"). Any Chinese neighbour would not do: running text puts words side by side
    ("梯度下降更新参数")."""
    found = set()
    for term, sides in contexts.items():
        for side in sides:
            total = sum(side.values())
            char, count = side.most_common(1)[0] if total else ("", 0)
            if count >= FRAGMENT_SHARE * total and _HAN_CHAR.fullmatch(char) and char not in BOUNDARY_WORDS:
                found.add(term)
    return found


def english_keys(text: str, phrases: dict[str, str]) -> set[str]:
    """The corpus phrase keys of a text (1-3 consecutive index terms)."""
    words = terms(text)
    return {key for size in range(1, MAX_ENGLISH_WORDS + 1) for at in range(len(words) - size + 1)
            if (key := " ".join(words[at:at + size])) in phrases}


def mutual_nearest(zh: np.ndarray, en: np.ndarray, k: int = MUTUAL) -> tuple[np.ndarray, np.ndarray, set[tuple[int, int]]]:
    """Each Chinese row's k nearest English rows (indices, cosines), and the (zh, en) pairs where
    the Chinese row is also among the English row's k nearest. Rows are unit vectors."""
    rows, cols = zh.shape[0], en.shape[0]
    k_en, k_zh = min(k, cols), min(k, rows)
    near = np.zeros((rows, k_en), dtype=np.int64)
    near_score = np.zeros((rows, k_en), dtype=np.float32)
    col_best = np.full((k_zh, cols), -np.inf, dtype=np.float32)
    col_index = np.zeros((k_zh, cols), dtype=np.int64)
    for start in range(0, rows, CHUNK_ROWS):
        scores = zh[start:start + CHUNK_ROWS] @ en.T
        top = np.argpartition(-scores, k_en - 1, axis=1)[:, :k_en]
        near[start:start + len(scores)] = top
        near_score[start:start + len(scores)] = np.take_along_axis(scores, top, axis=1)
        # the chunk's k best rows of each column, merged with the best so far
        chunk_k = min(k_zh, len(scores))
        chunk_top = np.argpartition(-scores, chunk_k - 1, axis=0)[:chunk_k]
        merged = np.concatenate([col_best, np.take_along_axis(scores, chunk_top, axis=0)])
        merged_index = np.concatenate([col_index, chunk_top + start])
        keep = np.argpartition(-merged, k_zh - 1, axis=0)[:k_zh]
        col_best = np.take_along_axis(merged, keep, axis=0)
        col_index = np.take_along_axis(merged_index, keep, axis=0)
    mutual = {(int(row), col) for col, rows_of in enumerate(col_index.T.tolist()) for row in rows_of}
    return near, near_score, mutual


def align(documents: Sequence[DocumentPair], phrases: dict[str, str], encode: Callable[[list[str]], np.ndarray],
          log: Callable[[str], None] = lambda _: None) -> list[Candidate]:
    """Candidate pairs (how PARALLEL) aligned from document pairs, one per source whose documents
    hold both terms."""
    zh_docs: dict[str, set[int]] = defaultdict(set)
    en_docs: dict[str, set[int]] = defaultdict(set)
    contexts: dict[str, tuple[Counter[str], Counter[str]]] = defaultdict(lambda: (Counter(), Counter()))
    for at, document in enumerate(documents):
        for term, before, after in chinese_terms(document.zh):
            zh_docs[term].add(at)
            contexts[term][0][before] += 1
            contexts[term][1][after] += 1
        for key in english_keys(document.en, phrases):
            en_docs[key].add(at)
    partial = fragments(contexts)
    chinese = sorted(term for term, docs in zh_docs.items() if len(docs) >= MIN_DOCUMENTS and term not in partial)
    english = sorted(key for key, docs in en_docs.items() if len(docs) >= MIN_DOCUMENTS)
    log(f"parallel: {len(documents):,} document pairs, {len(chinese):,} Chinese and {len(english):,} English candidates")
    if not chinese or not english:
        return []

    zh_vectors = unit_rows(encode(chinese)).astype(np.float32)
    en_vectors = unit_rows(encode([phrases[key] for key in english])).astype(np.float32)
    near, near_score, mutual = mutual_nearest(zh_vectors, en_vectors)
    found: list[Candidate] = []
    for row, term in enumerate(chinese):
        best = None
        for col in near[row][np.argsort(-near_score[row])]:
            shared = zh_docs[term] & en_docs[english[col]]
            if ((row, int(col)) in mutual and len(shared) >= MIN_DOCUMENTS
                    and len(shared) >= MIN_SHARE * len(zh_docs[term])):
                best = (int(col), shared)
                break
        if best is None:
            continue
        col, shared = best
        by_source: dict[str, str] = {}  # the Chinese documents' sources (not the twins': one work, one source)
        for at in sorted(shared, key=lambda at: documents[at].path):
            by_source.setdefault(documents[at].source, documents[at].path)
        found.extend(Candidate(term, phrases[english[col]], source, PARALLEL, path) for source, path in sorted(by_source.items()))
    log(f"parallel: {len({candidate.zh for candidate in found}):,} Chinese terms aligned")
    return found
