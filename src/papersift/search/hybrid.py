"""The hybrid retriever (the default mode): lexical and dense rankings fused (SearchService plug-in).

The lexical side is the keyword backend with the query's words relaxed to "any of them,
ranked", so a long description or a mixed Chinese/English query still gets its English
terms matched; phrases, field words, exclusions and filters keep their meaning. The dense
side is the semantic retriever: multilingual-e5 for a query with Chinese words; for an
English query, the English model all-MiniLM-L6-v2 once its
vectors cover the papers (`papersift embed --model all-MiniLM-L6-v2`). Measured with BM25 on
the dev halves: known-item en MRR@10 0.502 with e5, 0.580 with MiniLM; SciFact nDCG@10 0.737
and 0.738. A query with Chinese words gets a third side: the same keyword search over the
query carried over to English corpus terms (search.crosslingual). `search.fusion` decides
how much each side counts. Similar papers (a stored paper, pasted text) fuse both dense
models' neighbours; see like_paper_ranking and like_text_ranking. When `papersift rank train`
has written a model for the data dir, it re-orders the fused list's head (search/ranker.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from papersift.index.analyzers import has_cjk
from papersift.models import ModelError, get_spec, is_built
from papersift.search.crosslingual import carried_over_query, is_description, phrase_query
from papersift.search.dense import make_retriever as make_dense_retriever
from papersift.search.fusion import fuse_hybrid, zscore_sum
from papersift.search.query import ParsedQuery, query_text
from papersift.search.rank_features import Signals
from papersift.search.ranker import LearnedRanker
from papersift.search.retrieval import KeywordSide
from papersift.search.semantic import DenseRetriever, kept_only
from papersift.search.similar import clip_like_text
from papersift.search.stages import stage
from papersift.search.types import SearchRequest

# Each side's list is this deep whatever k the caller wants: z-scores depend on the list
# they are taken over, so a page (k=1000) and `eval` (k=100) must fuse the same lists.
LEXICAL_DEPTH = 200  # fusion rarely lifts a paper from below lexical rank 200 into the top pages
DENSE_DEPTH = 200
ENGLISH_MODEL = "all-MiniLM-L6-v2"
FULL_COVERAGE = 0.999


class DenseSide(Protocol):
    """What the hybrid retriever asks of its dense side: the embedded DenseRetriever, or the
    cluster's vector search (backends/typesense_vectors.py)."""

    @property
    def index(self) -> object:
        """None while there are no vectors to search (hybrid then ranks by keywords alone)."""

    def notices(self) -> list[str]: ...

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]: ...


class HybridRetriever:
    def __init__(self, dense: DenseSide, keyword: KeywordSide, english: DenseRetriever | None = None,
                 ranker: LearnedRanker | None = None):
        self.dense = dense
        self.ranker = ranker  # the learned ranker of the data dir (it ranks only when a usable model is there)
        self.english = english  # English-only model for English queries, when built and embedded
        self.keyword = keyword
        # The bridge's translation of a query embeds its Chinese segments: once per text (per
        # bridge generation), however many counts and clients ask (search/memo.py).

    def dense_for(self, text: str) -> DenseSide:
        """The English model for a query without CJK words once it covers every paper, else e5."""
        english = self.english
        return english if english is not None and not has_cjk(text) and self.english_ready() else self.dense

    def english_ready(self) -> bool:
        """Whether the English model's index covers every paper (a half-embedded one would hide
        the papers it lacks)."""
        return self.english is not None and self.english.coverage() >= FULL_COVERAGE

    def notices(self) -> list[str]:
        return self.dense.notices()

    def lexical_ranking(self, query: ParsedQuery, k: int,
                        candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        result = self.keyword.backend.search(query.relaxed(), "relevance", 0, k, with_facets=False,
                                             candidate_ids=candidate_ids)
        return list(zip(result.paper_ids, result.scores))

    def translated_ranking(self, query: ParsedQuery, k: int,
                           candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]] | None:
        """Keyword ranking of the query's English carry-over (None for a query without CJK
        words): through the term bridge when it is built, else by the dictionary's senses that
        papers use.
        Filters and exclusions stay as typed."""
        reading = self.reading_for(query_text(query))
        if reading is None or not (reading.searched or reading.authors):
            return None
        # the phrases papers write, as keyword mode
        phrased = phrase_query(query, reading, self.keyword.term_lexicon, self.keyword.phrase_papers,
                               self.keyword.term_doc_freq)
        if phrased is not None:
            ranked = self.lexical_ranking(phrased, k, candidate_ids)
            if ranked:
                return ranked
        return self.lexical_ranking(carried_over_query(query, reading.searched, authors=reading.authors), k,
                                    candidate_ids)

    def reading_for(self, text: str):
        """The query's English reading, as the dense side reads it (remembered there); a dense
        side without a term bridge (Typesense) leaves it to the lexicon and the dictionary, a
        description without the phrase neighbours, as the embedded one reads it (semantic.py)."""
        dense_reading = getattr(self.dense, "reading_for", None)
        if dense_reading is not None:
            return dense_reading(text)
        return self.keyword.reading_of(text, None, None, neighbours=not is_description(text))

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if request.like_id:
            return self.like_paper_ranking(request, query, k, candidate_ids)
        if request.like_text:
            return self.like_text_ranking(request, query, k, candidate_ids)
        if self.dense.index is None:
            return self.keyword.rank(query_text(query), k, candidate_ids=candidate_ids)
        named = self.named_only(request, query, k, candidate_ids)
        if named is not None:
            return named
        signals = self.signals(request, query, candidate_ids)
        fused = signals.fused
        if self.ranker is not None:
            with stage("rerank"):
                fused = self.ranker.rerank(signals, self.keyword.backend)
        kept = self.kept_lexical(query, list(signals.lexical), candidate_ids)
        # above the model's relevance floor (search/semantic.py)
        kept.update(paper_id for paper_id, _ in kept_only(list(signals.dense), signals.dense_kept))
        kept.update(paper_id for paper_id, _ in signals.translated or ())
        return [(paper_id, score) for paper_id, score in fused if paper_id in kept][:k]

    def signals(self, request: SearchRequest, query: ParsedQuery,
                candidate_ids: Sequence[str] | None = None) -> Signals:
        """Each side's ranking of a query and their fusion: what the learned ranker reads."""
        text = query_text(query)
        dense_side = self.dense_for(text)
        # the keyword lists first: a Chinese description's embeddings are meanwhile computed on the
        # encoder thread (semantic.py _read_description)
        lexical = self.lexical_ranking(query, LEXICAL_DEPTH, candidate_ids)
        translated = None if request.literal else self.translated_ranking(query, LEXICAL_DEPTH, candidate_ids)
        # the whole dense list is fused (z-scores over it); its floor only says which papers it adds
        ranked_and_kept = getattr(dense_side, "ranked_and_kept", None)
        dense, dense_kept = (ranked_and_kept(request, query, DENSE_DEPTH, candidate_ids) if ranked_and_kept is not None
                             else (dense_side.retrieve(request, query, DENSE_DEPTH, candidate_ids), None))
        trust = getattr(dense_side, "dense_trust", 1.0)  # below 1 while static vectors rank (search/bestvector.py)
        with stage("fusion"):
            fused = fuse_hybrid(text, lexical, dense, translated, trust)
        reading = self.reading_for(text) if translated is not None else None
        return Signals(text, lexical, dense, translated, fused, trust, reading, dense_kept)

    def kept_lexical(self, query: ParsedQuery, lexical: list[tuple[str, float]],
                     candidate_ids: Sequence[str] | None = None) -> set[str]:
        """The lexical side's papers that belong to the result set: those with all the words,
        or, when none of them has all, every one (the best papers for some of the words, as
        keyword mode shows them). Papers that only share a word with the query count only when
        the dense side also finds them above its floor."""
        ids = [paper_id for paper_id, _ in lexical]
        if not ids or not query.match_all:
            return set(ids)
        complete = self.keyword.backend.search(query, "relevance", 0, len(ids), with_facets=False,
                                               candidate_ids=ids).paper_ids
        return set(complete) if complete else set(ids)

    def named_only(self, request: SearchRequest, query: ParsedQuery, k: int,
                   candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]] | None:
        """A query that only names people in Chinese ("何恺明"): their papers, newest first (an
        embedding of a name says nothing about its bearer's work). None for any other query."""
        if request.literal or not has_cjk(query_text(query)):
            return None
        reading = self.reading_for(query_text(query))
        if reading is None or not reading.authors or reading.searched:
            return None
        named = carried_over_query(query, "", authors=reading.authors)
        result = self.keyword.backend.search(named, "newest", 0, k, with_facets=False, candidate_ids=candidate_ids)
        return [(paper_id, 1.0 / rank) for rank, paper_id in enumerate(result.paper_ids, 1)]

    def like_paper_ranking(self, request: SearchRequest, query: ParsedQuery, k: int,
                           candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Similar papers for a stored paper: its e5 neighbours and, once the English model covers
        every paper, its MiniLM neighbours, z-score fused (both from stored vectors, no model
        call). Measured on CSFCube (each dev query's paper against its pool, NDCG@20): e5 0.566,
        MiniLM 0.560, both 0.605; adding a keyword ranking of the paper's text: 0.588."""
        lists = [self.dense.retrieve(request, query, DENSE_DEPTH, candidate_ids)]
        english = self.english
        if english is not None and self.english_ready():
            lists.append(english.retrieve(request, query, DENSE_DEPTH, candidate_ids))
        return (zscore_sum(lists) if len(lists) > 1 else lists[0])[:k]

    def like_text_ranking(self, request: SearchRequest, query: ParsedQuery, k: int,
                          candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Similar papers for pasted text: the keyword ranking of the text, e5's ranking of it as a
        passage and, for text without CJK, the English model's, z-score fused. Pasted text is long
        enough for both dense models to read it alike, and their agreement helps here (CSFCube
        facet sentences NDCG@20 0.537 with RRF of BM25 + e5, 0.578 with these three; SciFact
        nDCG@10 0.695 → 0.737), unlike short queries, where e5 beside MiniLM hurt (README)."""
        text = clip_like_text(request.like_text or "")  # retrieve() calls this for a like_text
        lists = [self.keyword.rank(text, LEXICAL_DEPTH, candidate_ids=candidate_ids),
                 self.dense.retrieve(request, query, DENSE_DEPTH, candidate_ids)]
        reading = self.reading_for(text) if has_cjk(text) else None
        if reading is not None and reading.searched:  # pasted Chinese: its English words, ranked
            lists.append(self.keyword.rank(reading.searched, LEXICAL_DEPTH, candidate_ids=candidate_ids))
        english = self.dense_for(text)
        if english is not self.dense:
            lists.append(english.retrieve(request, query, DENSE_DEPTH, candidate_ids))
        return zscore_sum(lists)[:k]


def make_retriever(data_dir: str | Path, keyword: KeywordSide) -> HybridRetriever | None:
    dense = make_dense_retriever(data_dir, keyword, quick_descriptions=True)
    if dense is None:
        return None
    return HybridRetriever(dense, keyword, english=_english_retriever(data_dir, keyword),
                           ranker=LearnedRanker(data_dir))


def _english_retriever(data_dir: str | Path, keyword: KeywordSide) -> DenseRetriever | None:
    """A retriever over the English model's vectors when that model is built (its index may
    appear later: the retriever picks it up, and dense_for waits for full coverage)."""
    try:
        built = is_built(get_spec(ENGLISH_MODEL))
    except ModelError:
        built = False
    return DenseRetriever(data_dir, keyword, model=ENGLISH_MODEL) if built else None
