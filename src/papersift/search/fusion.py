"""Hybrid ranking: fuse a lexical and a dense ranked list into one.

The default (`fuse_hybrid`) is a weighted sum of z-normalised scores, the convex
combination Bruch et al. (2023, "An Analysis of Fusion Functions for Hybrid Retrieval")
found more accurate than reciprocal rank fusion: unlike ranks, scores say how far ahead a
paper is, so a side that is sure of one paper (a BM25 score far above the rest) can carry
it. Each side's scores are standardised over its own top list (BM25 and cosine share no
scale); a paper missing from one side's list gets that list's lowest standardised score,
since it scored at most that. On the SciFact dev half this lifted hybrid nDCG@10 from
0.708 (RRF) to 0.737 with no weight fitted: both sides count the same for English.

The weights say how far each side can be trusted for this query:

- the lexical side only sees a Chinese query's Latin terms (the papers are in English), so
  the more of the query is CJK, the more the dense side leads;
- a lexical side that found almost nothing is no evidence against a paper, so its weight
  shrinks with its hit count;
- a Chinese query's English carry-over (search.crosslingual) is a third, keyword list: the
  reading's phrases, which count more than the dense side (TRANSLATED_WEIGHT).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)

Scored = Sequence[tuple[str, float]]  # (paper id, score), best first
# The dense side's weight while the static first pass ranks (models/static.py): a static model
# reads words, not sentences. Swept on the dev halves (docs/static-embeddings.md), SciFact
# nDCG@10 with static-only hybrid: 0.15 -> 0.700, 0.25 -> 0.699, 0.35 -> 0.697, 0.5 -> 0.690
# (keyword 0.695); known-item and CSFCube stay above keyword at every value tried.
STATIC_DENSE_TRUST = 0.25
# The weight of a Chinese query's English reading, searched by keyword, against the dense side's
# 1. The reading names the term as papers write it (its phrases, search/crosslingual.py
# phrase_query); e5's neighbours of a short Chinese term are looser. zhterms hybrid zh MRR@10,
# half A (decided) / half B (confirmed), docs/crosslingual.md: 1.0 (equal, as before, not fitted)
# 0.659 / 0.652, 1.25 0.673, 1.5 0.686 / 0.686, 2.0 0.687; the issue's "lean on the embedding when
# no reading is sure" measured the other way (0.75 for guessed readings: 0.629; 1.5 for guesses
# only: 0.678).
TRANSLATED_WEIGHT = 1.5


@dataclass(frozen=True, slots=True)
class FusionWeights:
    lexical: float
    dense: float
    translated: float = TRANSLATED_WEIGHT  # keyword side over a Chinese query carried over to English terms


def cjk_fraction(text: str) -> float:
    """Share of the query's letters that are CJK characters (0 for English, ~1 for Chinese)."""
    letters = _LETTER.findall(text)
    if not letters:
        return 0.0
    return sum(1 for ch in letters if _CJK.match(ch)) / len(letters)


def fusion_weights(query: str, lexical_hits: int | None = None, few_hits: int = 3) -> FusionWeights:
    """How much to trust each side for this query (see the module docstring)."""
    cjk = cjk_fraction(query)
    lexical = 1.0 - 0.75 * cjk
    if lexical_hits is not None and lexical_hits < few_hits:
        lexical *= 0.5
    return FusionWeights(lexical=lexical, dense=1.0)


def standardized(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Zero mean, unit variance (all zeros when the scores are all equal); an array keeps its
    dtype (recommendations standardize float32 scores of every paper), a list becomes float64."""
    values = scores if isinstance(scores, np.ndarray) else np.asarray(scores, dtype=np.float64)
    spread = values.std() if len(values) else 0.0
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def zscore_sum(scored_lists: Sequence[Scored], weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Weighted sum of each list's standardised scores; a paper missing from a list gets that
    list's lowest standardised score. Ties keep first-seen order."""
    weights = _checked_weights(scored_lists, weights)
    normalized = [dict(zip((doc for doc, _ in scored), standardized([s for _, s in scored])))
                  for scored in scored_lists]
    floors = [min(values.values(), default=0.0) for values in normalized]
    order = list(dict.fromkeys(doc for values in normalized for doc in values))
    fused = {doc: float(sum(weight * values.get(doc, floor) for weight, values, floor in zip(weights, normalized, floors)))
             for doc in order}
    return sorted(fused.items(), key=lambda item: -item[1])


def fuse_hybrid(query: str, lexical: Scored, dense: Scored,
                translated: Scored | None = None, dense_trust: float = 1.0) -> list[tuple[str, float]]:
    """The default hybrid ranking: z-score fusion with query-dependent weights; `dense_trust`
    scales the dense side's weight (STATIC_DENSE_TRUST while static vectors rank)."""
    weights = fusion_weights(query, lexical_hits=len(lexical))
    lists, list_weights = [lexical, dense], [weights.lexical, weights.dense * dense_trust]
    if translated is not None:
        lists.append(translated)
        list_weights.append(weights.translated)
    return zscore_sum(lists, list_weights)


def _checked_weights(lists: Sequence, weights: Sequence[float] | None) -> Sequence[float]:
    weights = weights if weights is not None else [1.0] * len(lists)
    if len(weights) != len(lists):
        raise ValueError(f"{len(weights)} weights for {len(lists)} ranked lists")
    return weights
