"""The term bridge: the corpus's English terms embedded by the multilingual model.

Papers are in English; a Chinese query matches none of their words, so the keyword side of
hybrid search is blind to it and the dense side (a small model) carries it alone. The
bridge gives the keyword side a translation: the corpus's own frequent English terms (words
and 2-3 word phrases from titles and abstracts) embedded once with the same multilingual
model that embeds queries, so a Chinese word or phrase of a query maps to its nearest
English term (lexicon induction with a shared embedding space, as in Conneau et al. 2018,
here without a seed dictionary: the model is already cross-lingual). Terms come from the
corpus, so a translation is always a word the index can match, in the corpus's own usage
("对抗" becomes "adversarial", not a dictionary's "to resist"). When a dictionary's senses of a
word are corpus terms, the choice is made among those (search/cedict.py: the embedding alone
lands loose neighbours, "评论家" on "review" rather than "critic").

Stored like the paper vectors (vectors/<model>@terms/, generations swapped atomically; the
"paper ids" are the terms) and built by `papersift embed` after the papers: a rerun embeds
only terms its cache lacks.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import cast

import numpy as np

from papersift.index import vectors as vector_index
from papersift.record import Paper

TERMS_SUFFIX = "@terms"
MIN_DOCUMENT_FREQUENCY = 3  # a term in fewer papers is more likely a typo or a formula than a concept
MAX_TERMS = 60_000  # the most frequent; 60K took ~2 min to embed on 2 cores (measured on the shared corpus)
MAX_WORDS = 3
_WORD = re.compile(r"[a-z][a-z0-9\-]*[a-z0-9]|[a-z]")
_CLAUSE_BREAK = re.compile(r"[.,;:()\[\]{}!?\"]")
# A phrase neither starts nor ends with one of these ("of the model" is not a term).
EDGE_STOP_WORDS = frozenset({
    "a", "an", "the", "of", "for", "and", "or", "in", "on", "to", "with", "by", "from", "as", "at", "is",
    "are", "be", "we", "our", "this", "that", "these", "via", "using", "based", "its", "it", "their", "which",
    "into", "than", "can", "not", "under", "over",
})


def terms_model(model: str) -> str:
    """The vector-index name the bridge of `model` is stored under."""
    return f"{model}{TERMS_SUFFIX}"


def paper_terms(paper: Paper) -> set[str]:
    """The distinct 1-3 word terms of a paper's title and abstract (lowercase)."""
    text = f"{paper.title}. {paper.abstract or ''}".lower()
    found: set[str] = set()
    for clause in _CLAUSE_BREAK.split(text):
        words = _WORD.findall(clause)
        for size in range(1, MAX_WORDS + 1):
            for start in range(len(words) - size + 1):
                gram = words[start:start + size]
                if gram[0] not in EDGE_STOP_WORDS and gram[-1] not in EDGE_STOP_WORDS:
                    found.add(" ".join(gram))
    return found


def corpus_terms(papers: Iterable[Paper], min_df: int = MIN_DOCUMENT_FREQUENCY,
                 max_terms: int = MAX_TERMS) -> list[str]:
    """The corpus's terms in at least `min_df` papers, most frequent first (ties alphabetical)."""
    frequency: Counter[str] = Counter()
    for paper in papers:
        frequency.update(paper_terms(paper))
    kept = [(count, term) for term, count in frequency.items() if count >= min_df]
    kept.sort(key=lambda item: (-item[0], item[1]))
    return [term for _, term in kept[:max_terms]]


def is_stale(data_dir: str | os.PathLike, model: str, papers_total: int, last_seq: int) -> bool:
    """True when the bridge is missing or was built from another state of the papers."""
    folder = vector_index.current_generation(data_dir, terms_model(model))
    meta = vector_index.read_meta(folder) if folder is not None else None
    return meta is None or (meta.papers_total, meta.last_seq) != (papers_total, last_seq)


def build_bridge(data_dir: str | os.PathLike, papers: Sequence[Paper], encoder, last_seq: int,
                 embed_terms: Callable[[list[str]], np.ndarray]) -> Path:
    """Extract the corpus's terms, embed them (`embed_terms`: texts -> unit rows, cached by the
    caller) and publish them as the bridge of the encoder's model."""
    terms = corpus_terms(papers)
    vectors = embed_terms(terms) if terms else np.zeros((0, encoder.dim), dtype=np.float32)
    return vector_index.write_index(data_dir, terms_model(encoder.name), terms, vectors,
                                    papers_total=len(papers), last_seq=last_seq, scan_min_rows=len(terms) + 1)


class TermBridge:
    """Nearest corpus term for each embedded query segment (exact search: one small product).

    Chinese queries share most of their words (学习, 网络, 模型 ...), so each segment's term is
    remembered for the life of this generation (bounded): a repeated word costs no model call."""

    MEMO_SIZE = 50_000

    def __init__(self, index: vector_index.VectorIndex):
        self.index = index
        self.terms = index.paper_ids
        self._row_of_term: dict[str, int] | None = None
        self._memo: dict[str, str] = {}

    @classmethod
    def open(cls, data_dir: str | os.PathLike, model: str) -> TermBridge | None:
        index = vector_index.VectorIndex.open(data_dir, terms_model(model))
        return cls(index) if index is not None and len(index) else None

    @property
    def folder(self) -> Path:
        return self.index.folder

    @property
    def row_of_term(self) -> dict[str, int]:
        if self._row_of_term is None:
            self._row_of_term = {term: row for row, term in enumerate(self.terms)}
        return self._row_of_term

    def nearest_terms(self, segment_vectors: np.ndarray,
                      senses: Sequence[Sequence[str]] | None = None) -> list[str]:
        """The closest term to each row (cosine; rows and terms are unit vectors). With
        `senses` (per row: the English terms a dictionary gives), a row picks among those of
        its senses that are corpus terms, and only when none is picks from every term."""
        segment_vectors = np.asarray(segment_vectors, dtype=np.float32)
        best: list[str | None] = [None] * len(segment_vectors)
        for at, row_senses in enumerate(senses or ()):
            rows = [self.row_of_term[term] for term in row_senses if term in self.row_of_term]
            if rows:
                best[at] = self.terms[rows[int(np.argmax(self.index.vectors[rows] @ segment_vectors[at]))]]
        # Only the rows no sense settled are compared with every term (the costly product).
        open_rows = [at for at, term in enumerate(best) if term is None]
        if open_rows:
            nearest = np.argmax(segment_vectors[open_rows] @ self.index.vectors.T, axis=1)
            for at, row in zip(open_rows, nearest):
                best[at] = self.terms[row]
        return cast("list[str]", best)  # every row is settled by now

    def translate(self, segments: Sequence[str], embed: Callable[[list[str]], np.ndarray],
                  senses: Callable[[str], Sequence[str]] | None = None) -> list[str]:
        """The nearest term of each segment, among its dictionary senses when `senses`
        (segment -> English terms) gives some that are corpus terms; `embed` (texts -> query
        vectors) runs only for segments not seen before."""
        found = {segment: term for segment in segments if (term := self._memo.get(segment)) is not None}
        unseen = [segment for segment in dict.fromkeys(segments) if segment not in found]
        if unseen:
            unseen_senses = [senses(segment) for segment in unseen] if senses is not None else None
            new_terms = dict(zip(unseen, self.nearest_terms(embed(unseen), unseen_senses)))
            found.update(new_terms)
            if len(self._memo) + len(new_terms) > self.MEMO_SIZE:
                self._memo.clear()
            self._memo.update(new_terms)
        return [found[segment] for segment in segments]
