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
function word at either end) in at least MIN_DOCUMENTS documents; English candidates are the
1-3 word corpus phrases of the English twins in at least MIN_DOCUMENTS documents.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from papersift.index.analyzers import cjk_word_spans, terms
from papersift.ingest.glossary_sources import BOUNDARY_WORDS, PARALLEL, Candidate, DocumentPair

MIN_PAPERS = 5
MIN_DOCUMENTS = 2
MIN_SHARE = 0.6
MUTUAL = 5
MAX_WORDS = 3
MAX_ENGLISH_WORDS = 3
CHUNK_ROWS = 1024
_ALL_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,8}")


def corpus_phrases(lexicon: Path, min_papers: int = MIN_PAPERS) -> dict[str, str]:
    """Phrase key -> most common spelling, for the phrases of at least min_papers papers."""
    with sqlite3.connect(f"file:{lexicon}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT key, surface FROM phrase WHERE papers >= ?", (min_papers,)))


def chinese_terms(text: str) -> set[str]:
    """Candidate Chinese terms of a text: jieba words and runs of adjacent words."""
    found: set[str] = set()
    spans = cjk_word_spans(text)
    for at, (_, _, word) in enumerate(spans):
        if word in BOUNDARY_WORDS:
            continue
        joined, last_end = "", spans[at][0]
        for start, stop, part in spans[at:at + MAX_WORDS]:
            if start != last_end:
                break
            joined, last_end = joined + part, stop
            if part not in BOUNDARY_WORDS and _ALL_HAN.fullmatch(joined):
                found.add(joined)
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
        merged = np.concatenate([col_best, scores])
        merged_index = np.concatenate([col_index, np.arange(start, start + len(scores))[:, None].repeat(cols, axis=1)])
        keep = np.argpartition(-merged, k_zh - 1, axis=0)[:k_zh]
        col_best = np.take_along_axis(merged, keep, axis=0)
        col_index = np.take_along_axis(merged_index, keep, axis=0)
    mutual = {(int(row), int(col)) for col in range(cols) for row in col_index[:, col] if np.isfinite(col_best[0, col])}
    return near, near_score, mutual


def align(documents: Sequence[DocumentPair], phrases: dict[str, str], encode: Callable[[list[str]], np.ndarray],
          log: Callable[[str], None] = lambda _: None) -> list[Candidate]:
    """Candidate pairs (how PARALLEL) aligned from document pairs, one per source whose documents
    hold both terms."""
    zh_docs: dict[str, set[int]] = defaultdict(set)
    en_docs: dict[str, set[int]] = defaultdict(set)
    for at, document in enumerate(documents):
        for term in chinese_terms(document.zh):
            zh_docs[term].add(at)
        for key in english_keys(document.en, phrases):
            en_docs[key].add(at)
    chinese = sorted(term for term, docs in zh_docs.items() if len(docs) >= MIN_DOCUMENTS)
    english = sorted(key for key, docs in en_docs.items() if len(docs) >= MIN_DOCUMENTS)
    log(f"parallel: {len(documents):,} document pairs, {len(chinese):,} Chinese and {len(english):,} English candidates")
    if not chinese or not english:
        return []
    from papersift.index.glossary_build import unit_rows

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
        by_source: dict[str, str] = {}
        for at in sorted(shared, key=lambda at: documents[at].path):
            for source in (documents[at].source, documents[at].english_source):
                by_source.setdefault(source, documents[at].path)
        found.extend(Candidate(term, phrases[english[col]], source, PARALLEL, path) for source, path in sorted(by_source.items()))
    log(f"parallel: {len({candidate.zh for candidate in found}):,} Chinese terms aligned")
    return found
