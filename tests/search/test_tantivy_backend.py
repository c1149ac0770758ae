"""Ranking parity with a reference BM25 (bm25s) on a real slice, and backend mechanics."""

from __future__ import annotations

import bm25s
import pytest
import Stemmer

from papersift.bench.lexical import paper_text
from papersift.search.query import AnyOf, ParsedQuery, Words, natural_text_query, parse_query
from papersift.store import Store

K = 10


@pytest.fixture(scope="module")
def reference(indexed_dir):
    papers = [paper for _, paper in Store(indexed_dir, readonly=True).iter_papers(0)]
    stemmer = Stemmer.Stemmer("english")
    # tantivy's BM25 is Lucene's: k1 = 1.2, b = 0.75.
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(bm25s.tokenize([paper_text(p) for p in papers], stopwords="en", stemmer=stemmer,
                                   show_progress=False), show_progress=False)

    def top(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        ids, _ = retriever.retrieve(tokens, k=K, show_progress=False, n_threads=1)
        return [papers[i].id for i in ids[0]]

    return papers, top


def test_top_k_overlaps_bm25s(service, reference):
    papers, top = reference
    # Real query strings: titles of some papers and sentences from others' abstracts.
    queries = [p.title for p in papers[::97]] + [p.abstract.split(". ")[0] for p in papers[50::97] if p.abstract]
    overlaps = []
    for query in queries:
        ours = [paper_id for paper_id, _ in service.rank(query, K)]
        overlaps.append(len(set(ours) & set(top(query))) / K)
    mean = sum(overlaps) / len(overlaps)
    # Same BM25 (k1, b, idf), stemmer and stop words. What differs: bm25s drops 1-letter
    # tokens, tantivy folds accents and stores document lengths in one byte (fieldnorm
    # buckets), so the lists agree on most but not all papers (0.78 when written).
    assert mean >= 0.75, f"mean top-{K} overlap {mean:.2f} over {len(queries)} queries"


def test_natural_text_ranks_the_paper_whose_title_it_is_first(service, reference):
    papers, _ = reference
    for paper in papers[::211]:
        assert service.rank(paper.title, 3)[0][0] == paper.id


def test_pool_restricts_ranking(service, reference):
    papers, _ = reference
    pool = [p.id for p in papers[:40]]
    ranked = service.backend.search(natural_text_query("learning"), limit=100, with_facets=False,
                                    candidate_ids=pool, depth=100)
    assert ranked.paper_ids and set(ranked.paper_ids) <= set(pool)


def test_with_and_without_records_agree(service):
    query = parse_query("reinforcement learning")
    with_papers = service.backend.search(query, with_papers=True, with_facets=False)
    ids_only = service.backend.search(query, with_facets=False)
    assert [p.id for p in with_papers.papers] == ids_only.paper_ids and ids_only.papers == []


@pytest.mark.parametrize("text", ["reinforcement learning", '"graph neural" networks', "title:attention sparse",
                                  "learning -vision", "bengio deep"])
def test_the_counting_query_matches_what_the_ranking_query_matches(service, text):
    backend = service.backend
    plan = backend.plan(parse_query(text))
    assert plan.matching is not plan.scored  # these queries have title boosts
    ranked = backend.searcher.search(plan.scored, 10_000, count=True)
    counted = backend.searcher.search(plan.matching, 10_000, count=True)
    assert ranked.count == counted.count > 0
    assert {address.doc for _, address in ranked.hits} == {address.doc for _, address in counted.hits}


def test_a_chinese_pages_phrases_are_counted_without_their_title_phrases(service):
    """A query of phrase options (what crosslingual.phrase_query makes of a Chinese term) is counted
    and its facets taken over each option's `text` phrase alone: the title's phrase, which `text`
    starts with, only adds to the score. Same papers, same facet counts."""
    backend = service.backend
    query = ParsedQuery((AnyOf((Words("reinforcement learning", phrase=True),
                                Words("policy gradient", phrase=True, weight=0.6),
                                Words("graph neural networks", phrase=True, weight=0.6))),), match="all")
    plan = backend.plan(query)
    assert plan.matching is not plan.scored
    ranked = backend.searcher.search(plan.scored, 10_000, count=True)
    counted = backend.searcher.search(plan.matching, 10_000, count=True)
    assert ranked.count == counted.count > 20
    assert {address.doc for _, address in ranked.hits} == {address.doc for _, address in counted.hits}
    from papersift.search.tantivy_backend import FACET_AGGREGATION

    assert backend.searcher.aggregate(plan.matching, FACET_AGGREGATION) == backend.searcher.aggregate(plan.scored, FACET_AGGREGATION)


@pytest.mark.parametrize("text", ["reinforcement learning", "graph neural networks", "self-attention", "learning",
                                  "the of and", "learning of representations", "zebra quantum"])
def test_a_phrase_count_is_the_total_of_a_search_for_the_phrase(service, text):
    """TantivyBackend.phrase_count (what the service's phrase_papers asks, a few times a Chinese
    page) counts what a search for the phrase finds, without compiling that search."""
    backend = service.backend
    total = backend.search(ParsedQuery((Words(text, phrase=True),)), "relevance", 0, 1, with_facets=False).total
    assert backend.phrase_count(text) == total
    assert service.phrase_papers(text) == total


def test_the_service_counts_a_phrase_without_a_search(service, monkeypatch):
    monkeypatch.setattr(service.backend, "plan", lambda *args, **kwargs: pytest.fail("a whole query planned"))
    assert service.phrase_papers("reinforcement learning") > 0


def test_cheap_term_positions_agree_with_the_analyzer():
    from papersift.index.analyzers import ENGLISH, NAMES, positioned_terms
    from papersift.search.tantivy_backend import _positioned_terms

    for text in ["Learning", "the", "Döring", ""]:  # at most one term: the terms are what matters
        for analyzer in (ENGLISH, NAMES):
            cheap, full = _positioned_terms(text, analyzer), positioned_terms(text, analyzer)
            assert len(full) <= 1 and [term for _, term in cheap] == [term for _, term in full]
    for text in ["self-attention", "state-of-the-art", "图神经网络", "x86-64 GPUs"]:  # phrases need the real positions
        for analyzer in (ENGLISH, NAMES):
            full = positioned_terms(text, analyzer)
            assert len(full) > 1 and list(_positioned_terms(text, analyzer)) == full  # a tuple: remembered, shared


def test_a_generation_without_institutions_decodes_only_the_page_rows(service, monkeypatch):
    """A relaxed query's result set is its best RELAXED_DEPTH papers; their facet counts come
    from the row store's codes, and the institution count reads records only when the
    generation names some institution (the sample corpus names none)."""
    from papersift.index.rows import RowReader
    from papersift.search.service import RELAXED_DEPTH
    from papersift.search.types import SearchRequest

    decoded: list[int] = []
    papers = RowReader.papers

    def counting(self, rows):
        decoded.append(len(rows))
        return papers(self, rows)

    monkeypatch.setattr(RowReader, "papers", counting)
    # no paper has all of these words, so the page is the relaxed query's best papers
    result = service.search(SearchRequest(query="neural zzyzxnomatch retrieval graphs", mode="keyword", size=20))
    assert result.total == RELAXED_DEPTH and len(result.hits) == 20
    assert sum(decoded) == 20, decoded


def test_candidates_alone_are_found_by_the_row_table_as_the_term_set_query_finds_them(service):
    """A query of candidate ids only (hybrid's filter pass, a ranked page's records) takes the
    row store's id table: the same papers, total and facets as the same ids as a filter (a
    term-set query), duplicates and unknown ids included, records too."""
    from papersift.search.query import ParsedQuery
    from papersift.search.types import Filters

    backend = service.backend
    ranked = [paper_id for paper_id, _ in service.rank("graph neural networks", 300)]
    candidates = [*ranked, ranked[0], "no-such-paper"]
    fast = backend.search(ParsedQuery(), "relevance", 0, len(candidates), candidate_ids=candidates, with_papers=True)
    # a full page (as many rows as asked for): its facets come from tantivy's aggregation
    by_filter = backend.search(ParsedQuery(filters=Filters(paper_ids=frozenset(candidates))), "relevance", 0,
                               len(ranked), with_papers=True)
    assert fast.total == by_filter.total == len(ranked)
    assert [paper.id for paper in fast.papers] == ranked  # in the candidates' order
    assert sorted(paper.id for paper in fast.papers) == sorted(paper.id for paper in by_filter.papers)
    assert fast.facets == by_filter.facets and fast.scores == [0.0] * len(ranked)
    # a page of ids (fewer than asked for) and a limit below the candidates take the query's path alike
    page = backend.search(ParsedQuery(), "relevance", 0, 5, candidate_ids=ranked[:5], with_facets=False)
    assert page.paper_ids == ranked[:5] and page.total == 5
    partial = backend.search(ParsedQuery(), "relevance", 0, 5, candidate_ids=ranked[:50], with_facets=False)
    assert partial.total == 50 and len(partial.paper_ids) == 5


def test_a_words_weight_scales_what_its_match_adds_to_the_score(service):
    # a reading's alternative phrase (search/crosslingual.py phrase_query) weighs less than the
    # reading: its papers keep their order, at `weight` times the score
    def ranked(*options: Words) -> dict[str, float]:
        result = service.backend.search(ParsedQuery((AnyOf(options),)), limit=50, with_facets=False)
        return dict(zip(result.paper_ids, result.scores))

    full = ranked(Words("neural networks", phrase=True))
    weighted = ranked(Words("neural networks", phrase=True, weight=0.5))
    assert len(full) >= 5 and list(weighted) == list(full)
    assert all(weighted[paper] == pytest.approx(0.5 * score, rel=1e-4) for paper, score in full.items())
    # beside a phrase at full weight, a paper with both adds the weighted one's part
    both = ranked(Words("deep learning", phrase=True), Words("neural networks", phrase=True, weight=0.5))
    alone = ranked(Words("deep learning", phrase=True))
    shared = set(both) & set(alone) & set(full)
    assert shared
    for paper in shared:
        assert both[paper] == pytest.approx(alone[paper] + 0.5 * full[paper], rel=1e-4)
