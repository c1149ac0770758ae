"""Search with the best vector each paper has: e5's when it has one, else the static model's.

Right after indexing every paper gets a static vector (models/static.py, seconds); e5 then
embeds in the background (~30 min for 44K papers on 2 cores). The two models' vectors live in
different spaces, so a query is compared with each paper in the space of the vector that paper
has: e5 ranks the papers e5 has embedded, the static model ranks the others (its retriever's
`outside`), and the two lists are merged by each paper's z-score within its own list (how far
it stands out of its model's ranking). Raw cosines of the two models are not comparable (e5's
crowd into a narrow cone). Measured with e5 vectors for the shorter half of the 44,693 papers
(known-item MRR@10, semantic / hybrid): merging by estimated overall rank ((i + 0.5) / n of
each list's population) 0.227 / 0.622, by z-score 0.321 / 0.636 (static only 0.260 / 0.645,
e5 only 0.387 / 0.574). Once e5 covers every paper, e5 alone answers; before it has published
anything, the static model alone does.
"""

from __future__ import annotations

from collections.abc import Sequence

from papersift.search.fusion import standardized
from papersift.search.notices import Notice
from papersift.search.query import ParsedQuery
from papersift.search.semantic import DenseRetriever, kept_only
from papersift.search.types import SearchRequest

FULL_COVERAGE = 0.999  # as search/hybrid.py: a whole-corpus index written before the last papers came


def merge_by_zscore(ranked_lists: Sequence[Sequence[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    """Lists over disjoint sets of papers merged by each paper's standardised score within its
    own list: how far a paper stands out of its model's ranking, which is comparable across
    models where raw cosines are not."""
    merged: list[tuple[float, int, int, str]] = []
    for list_order, ranked in enumerate(ranked_lists):
        scores = standardized([score for _, score in ranked])
        merged.extend((-float(z), list_order, position, paper_id)
                      for position, ((paper_id, _), z) in enumerate(zip(ranked, scores)))
    merged.sort()
    return [(paper_id, -negative) for negative, _, _, paper_id in merged[:k]]


class BestVectorRetriever:
    """The semantic retriever (and hybrid's dense side) while a first pass is in place."""

    def __init__(self, full: DenseRetriever | None, first_pass: DenseRetriever):
        self.full = full  # e5 (None when it is not built)
        self.first_pass = first_pass
        first_pass.outside = full
        self._populations: tuple[tuple, tuple[int, int]] = ((), (0, 0))  # (generations, counts)

    @property
    def model(self) -> str:
        return self.full.model if self.full is not None and self.complete() else self.first_pass.model

    def complete(self) -> bool:
        """Whether e5's index covers every paper (then it alone answers)."""
        return self.full is not None and self.full.index is not None and self.full.coverage() >= FULL_COVERAGE

    @property
    def index(self):
        """e5's index once complete, else the first pass's (hybrid asks whether there is one)."""
        return self.full.index if self.full is not None and self.complete() else self.first_pass.index

    @property
    def bridge(self):
        return self.full.bridge if self.full is not None else None

    def coverage(self) -> float:
        return max(self.first_pass.coverage(), self.full.coverage() if self.full is not None else 0.0)

    def notices(self) -> list[str]:
        """The full model's once complete; before, the first pass's own, and how many papers it ranks."""
        if self.full is not None and self.complete():
            return self.full.notices()
        notices = self.first_pass.notices()
        with_full, only_first = self.populations()
        if only_first:
            notices.append(Notice("first_pass", share=only_first / (with_full + only_first)))
        return notices

    def reading_for(self, text: str):
        """The query's English reading, through e5's term bridge when there is one."""
        return (self.full if self.full is not None else self.first_pass).reading_for(text)

    @property
    def dense_trust(self) -> float:
        """Hybrid fusion's trust in this ranking: e5's full trust once complete, the static
        model's before e5 publishes, in between by the share of papers each space ranks."""
        if self.complete():
            return 1.0
        with_full, only_first = self.populations()
        static_trust = self.first_pass.dense_trust
        total = with_full + only_first
        return static_trust if not total else (with_full + only_first * static_trust) / total

    def populations(self) -> tuple[int, int]:
        """Papers each side ranks: those with an e5 vector, and the others with a static one;
        counted once per pair of generations (hybrid asks on every query, and at 1M papers the
        count is a loop over a million ids)."""
        full, first = (self.full.index if self.full is not None else None), self.first_pass.index
        key = (full.folder if full is not None else None, first.folder if first is not None else None)
        if self._populations[0] != key:
            with_full = len(full.row_of) if full is not None else 0
            only_first = sum(paper_id not in full.row_of for paper_id in first.row_of) if full is not None and first is not None \
                else (len(first.row_of) if first is not None else 0)
            self._populations = (key, (with_full, only_first))
        return self._populations[1]

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        return kept_only(*self.ranked_and_kept(request, query, k, candidate_ids))

    def ranked_and_kept(self, request: SearchRequest, query: ParsedQuery, k: int,
                        candidate_ids: Sequence[str] | None = None) -> tuple[list[tuple[str, float]], set[str] | None]:
        """The merged ranking and its papers above their model's floor (semantic.py): both lists
        are standardised whole, before the floor says which of their papers are kept."""
        if self.full is not None and self.complete():
            return self.full.ranked_and_kept(request, query, k, candidate_ids)
        if self.full is None or self.full.index is None:
            return self.first_pass.ranked_and_kept(request, query, k, candidate_ids)
        ranked_full, kept_full = self.full.ranked_and_kept(request, query, k, candidate_ids)
        ranked_first, kept_first = self.first_pass.ranked_and_kept(request, query, k, candidate_ids)  # papers e5 lacks
        merged = merge_by_zscore([ranked_full, ranked_first], k)
        if kept_full is None and kept_first is None:
            return merged, None
        dropped = {paper_id for ranked, kept in ((ranked_full, kept_full), (ranked_first, kept_first))
                   if kept is not None for paper_id, _ in ranked if paper_id not in kept}
        return merged, {paper_id for paper_id, _ in merged if paper_id not in dropped}
