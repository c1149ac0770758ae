"""Features of query–paper pairs for the learned ranker (search/ranker.py, issue 31).

A query's `Signals` are what the hybrid retriever already computed for it: the keyword ranking
(BM25 over title + abstract + keywords, any word), the dense ranking (the cosine of the model
that ranks: e5, the static first pass, or both merged by z-score), the Chinese reading's keyword
ranking and its confidence, and the fused list. `candidates()` is the union of their heads;
`feature_matrix()` turns each candidate into one row of FEATURES, computed once per query from
those lists and the candidates' records (BM25 per field from the index's document frequencies,
term coverage, phrase and title matches, author match, year, abstract). Nothing here loads a
model or writes a file.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from papersift.index.analyzers import ENGLISH, NAMES, terms
from papersift.record import Paper
from papersift.search.fusion import cjk_fraction, standardized
from papersift.search.termlexicon import QueryReading

FEATURE_VERSION = 1  # a model trained on another feature set is stale (search/ranker.py)
MISSING_RANK = 1000.0  # a list's rank for a paper it does not hold
HEAD = 100  # the fused list's head that is re-ranked
LIST_HEAD = 30  # and each retriever's first papers, when the fused head lacks them
K1, B = 1.2, 0.75

FEATURES = (
    "fused_z", "fused_rank",
    "lexical_z", "lexical_rank", "lexical_present",
    "dense_z", "dense_cos", "dense_rank", "dense_present",
    "translated_z", "translated_rank", "translated_present",
    "bm25_title", "bm25_abstract", "bm25_authors", "bm25_venue",
    "cover_title", "cover_abstract", "cover_any",
    "title_bigrams", "title_exact", "title_prefix", "title_in_query",
    "author_terms", "author_full",
    "year", "has_abstract", "title_len",
    "query_terms", "query_cjk", "dense_trust", "reading_confidence", "lexical_hits",
)

Ranked = Sequence[tuple[str, float]]
_NORMAL = re.compile(r"[\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Signals:
    """What the retrievers said about one query (search/hybrid.py HybridRetriever.signals)."""

    text: str
    lexical: Ranked
    dense: Ranked
    translated: Ranked | None
    fused: Ranked
    dense_trust: float = 1.0
    reading: QueryReading | None = None
    dense_kept: set[str] | None = None  # the dense papers above the model's relevance floor (None: all)


def candidates(signals: Signals, head: int = HEAD, list_head: int = LIST_HEAD) -> list[str]:
    """The papers the ranker orders: the fused head, then each list's first papers it lacks."""
    chosen = dict.fromkeys(paper_id for paper_id, _ in signals.fused[:head])
    for ranked in (signals.lexical, signals.dense, signals.translated or ()):
        chosen.update(dict.fromkeys(paper_id for paper_id, _ in ranked[:list_head]))
    return list(chosen)


def _normal(text: str) -> str:
    return " ".join(_NORMAL.sub(" ", text.casefold()).split())


def _list_columns(ranked: Ranked | None, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """z-score, raw score, rank (1-based; MISSING_RANK when absent) and presence of each id."""
    count = len(ids)
    z, raw, rank, present = np.full(count, -3.0), np.zeros(count), np.full(count, MISSING_RANK), np.zeros(count)
    if not ranked:
        return z, raw, rank, present
    zs = standardized([score for _, score in ranked])
    floor_z, floor_raw = float(zs.min()), float(min(score for _, score in ranked))
    at = {paper_id: (position, float(score), float(zscore))
          for position, ((paper_id, score), zscore) in enumerate(zip(ranked, zs))}
    for row, paper_id in enumerate(ids):
        found = at.get(paper_id)
        if found is None:
            z[row], raw[row] = floor_z, floor_raw
        else:
            rank[row], raw[row], z[row], present[row] = found[0] + 1, found[1], found[2], 1.0
    return z, raw, rank, present


def _bm25(query_terms: Sequence[str], field_terms: list[list[str]], idf: dict[str, float]) -> np.ndarray:
    """BM25 of each text for the query's terms, average length taken over these texts."""
    lengths = np.array([len(words) for words in field_terms], dtype=np.float64)
    average = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
    wanted = set(query_terms)
    scores = np.zeros(len(field_terms))
    for row, words in enumerate(field_terms):
        counts: dict[str, int] = {}
        for word in words:
            if word in wanted:
                counts[word] = counts.get(word, 0) + 1
        norm = K1 * (1 - B + B * lengths[row] / average)
        scores[row] = sum(idf[word] * count * (K1 + 1) / (count + norm) for word, count in counts.items())
    return scores


def feature_matrix(signals: Signals, ids: Sequence[str], papers: dict[str, Paper],
                   doc_freq: Callable[[str], int], documents: int) -> np.ndarray:
    """One row of FEATURES per id (a paper without a record gets empty text features)."""
    query_terms = list(dict.fromkeys(terms(signals.text, ENGLISH)))
    name_terms = set(terms(signals.text, NAMES))
    total = max(documents, 1)
    idf = {term: math.log(1 + (total - (df := doc_freq(term)) + 0.5) / (df + 0.5)) for term in query_terms}
    query_pairs = set(itertools.pairwise(query_terms))
    query_normal = _normal(signals.text)
    columns: dict[str, np.ndarray] = {}
    for name, ranked in (("fused", signals.fused), ("lexical", signals.lexical), ("dense", signals.dense),
                         ("translated", signals.translated)):
        z, raw, rank, present = _list_columns(ranked, ids)
        columns[f"{name}_z"], columns[f"{name}_rank"] = z, np.log1p(rank)
        columns[f"{name}_present"] = present
        if name == "dense":
            columns["dense_cos"] = raw
    records = [papers.get(paper_id) for paper_id in ids]
    titles = [terms(paper.title, ENGLISH) if paper else [] for paper in records]
    abstracts = [terms(paper.abstract or "", ENGLISH) if paper else [] for paper in records]
    authors = [terms(" ".join(paper.authors), NAMES) if paper else [] for paper in records]
    venues = [terms(paper.venue or "", ENGLISH) if paper else [] for paper in records]
    columns["bm25_title"] = _bm25(query_terms, titles, idf)
    columns["bm25_abstract"] = _bm25(query_terms, abstracts, idf)
    name_idf = dict.fromkeys(name_terms, 1.0)
    columns["bm25_authors"] = _bm25(list(name_terms), authors, name_idf)
    columns["bm25_venue"] = _bm25(query_terms, venues, {**idf, **dict.fromkeys(query_terms, 1.0)})
    wanted = set(query_terms)
    share = (lambda words: len(wanted & set(words)) / len(wanted)) if wanted else (lambda words: 0.0)
    columns["cover_title"] = np.array([share(words) for words in titles])
    columns["cover_abstract"] = np.array([share(words) for words in abstracts])
    columns["cover_any"] = np.array([share(t + a) for t, a in zip(titles, abstracts)])
    columns["title_bigrams"] = np.array([len(query_pairs & set(itertools.pairwise(words))) / len(query_pairs)
                                         if query_pairs else 0.0 for words in titles])
    normal_titles = [_normal(paper.title) if paper else "" for paper in records]
    columns["title_exact"] = np.array([float(bool(title) and title == query_normal) for title in normal_titles])
    columns["title_prefix"] = np.array([float(bool(query_normal) and len(query_normal) >= 8 and title.startswith(query_normal))
                                        for title in normal_titles])
    columns["title_in_query"] = np.array([float(len(title) >= 8 and title in query_normal) for title in normal_titles])
    columns["author_terms"] = np.array([len(name_terms & set(words)) / len(name_terms) if name_terms else 0.0
                                        for words in authors])
    columns["author_full"] = np.array([float(any(len(name) > 4 and _normal(name) in query_normal
                                                 for name in (paper.authors if paper else ())))
                                       for paper in records])
    columns["year"] = np.array([float(paper.year or 0) if paper else 0.0 for paper in records])
    columns["has_abstract"] = np.array([float(bool(paper and paper.abstract)) for paper in records])
    columns["title_len"] = np.array([float(len(words)) for words in titles])
    reading = signals.reading
    confidence = min((term.confidence for term in reading.terms), default=0.0) if reading is not None else 0.0
    constants = {"query_terms": float(len(query_terms)), "query_cjk": cjk_fraction(signals.text),
                 "dense_trust": signals.dense_trust, "reading_confidence": confidence,
                 "lexical_hits": float(len(signals.lexical))}
    for name, value in constants.items():
        columns[name] = np.full(len(ids), value)
    return np.column_stack([columns[name] for name in FEATURES]) if ids else np.zeros((0, len(FEATURES)))
