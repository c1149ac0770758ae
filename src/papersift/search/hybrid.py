"""The hybrid retriever (the default mode): lexical and dense rankings fused (SearchService plug-in).

The lexical side is the keyword backend with the query's words relaxed to "any of them,
ranked", so a long description or a mixed Chinese/English query still gets its English
terms matched; phrases, field words, exclusions and filters keep their meaning. The dense
side is the semantic retriever. A query with Chinese words gets a third side: the same
keyword search over the query carried over to English corpus terms (search.crosslingual).
`search.fusion` decides how much each side counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from papersift.search.crosslingual import english_query
from papersift.search.fusion import fuse_hybrid
from papersift.search.query import ParsedQuery, natural_text_query
from papersift.search.semantic import DenseRetriever, query_text
from papersift.search.semantic import make_retriever as make_dense_retriever
from papersift.search.similar import clip_like_text, fuse_like
from papersift.search.types import SearchRequest

LEXICAL_DEPTH = 200  # fusion rarely lifts a paper from below lexical rank 200 into the top pages
DENSE_DEPTH = 200


class HybridRetriever:
    def __init__(self, dense: DenseRetriever, service):
        self.dense = dense
        self.service = service

    def notices(self) -> list[str]:
        return self.dense.notices()

    def lexical_ranking(self, query: ParsedQuery, k: int,
                        candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        result = self.service.backend.search(query.relaxed(), "relevance", 0, k, with_facets=False,
                                             candidate_ids=candidate_ids)
        return list(zip(result.paper_ids, result.scores))

    def translated_ranking(self, query: ParsedQuery, k: int,
                           candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]] | None:
        """Keyword ranking of the query's English carry-over (None for a query without CJK
        words, or before the term bridge is built). Filters and exclusions stay as typed."""
        bridge = self.dense.bridge
        english = english_query(query_text(query), self.dense.encoder, bridge) if bridge is not None else None
        if english is None:
            return None
        carried = natural_text_query(english)
        return self.lexical_ranking(ParsedQuery(carried.required, query.excluded, query.filters), k, candidate_ids)

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        dense = self.dense.retrieve(request, query, min(k, DENSE_DEPTH), candidate_ids)
        dense_ids = [paper_id for paper_id, _ in dense]
        if request.like_id:
            return dense
        if request.like_text:
            lexical = self.service.rank(clip_like_text(request.like_text), LEXICAL_DEPTH, candidate_ids=candidate_ids)
            return fuse_like(dense_ids, [paper_id for paper_id, _ in lexical])
        if self.dense.index is None:
            return self.service.rank(query_text(query), k, candidate_ids=candidate_ids)
        lexical = self.lexical_ranking(query, min(k, LEXICAL_DEPTH), candidate_ids)
        translated = self.translated_ranking(query, min(k, LEXICAL_DEPTH), candidate_ids)
        return fuse_hybrid(query_text(query), lexical, dense, translated)


def make_retriever(data_dir: str | Path, service) -> HybridRetriever | None:
    dense = make_dense_retriever(data_dir, service)
    return HybridRetriever(dense, service) if dense is not None else None
