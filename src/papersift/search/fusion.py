"""Hybrid ranking: fuse a lexical and a dense ranked list into one.

Weighted reciprocal rank fusion (Cormack et al. 2009): score(d) = sum_i w_i / (k + rank_i(d)).
Ranks, not raw scores, so BM25 and cosine need no common scale. The weights say how far each
side can be trusted for this query:

- the lexical side only sees a Chinese query's Latin terms (the papers are in English), so
  the more of the query is CJK, the more the dense side leads;
- a lexical side that found almost nothing is no evidence against a paper, so its weight
  shrinks with its hit count.

With both weights 1 this is plain RRF; tests check it against ranx's `rrf`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class FusionWeights:
    lexical: float
    dense: float


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


def rrf(ranked_lists: Sequence[Sequence[str]], weights: Sequence[float] | None = None,
        k: int = RRF_K) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion of best-first id lists; ties keep first-seen order."""
    weights = weights if weights is not None else [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise ValueError(f"{len(weights)} weights for {len(ranked_lists)} ranked lists")
    fused: dict[str, float] = {}
    for ranked, weight in zip(ranked_lists, weights):
        for rank, doc_id in enumerate(ranked, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda item: -item[1])


def fuse_hybrid(query: str, lexical_ids: Sequence[str], dense_ids: Sequence[str],
                k: int = RRF_K) -> list[tuple[str, float]]:
    """The default hybrid ranking: RRF with query-dependent weights."""
    weights = fusion_weights(query, lexical_hits=len(lexical_ids))
    return rrf([lexical_ids, dense_ids], [weights.lexical, weights.dense], k)
