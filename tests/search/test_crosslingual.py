"""Chinese queries carried over to English corpus terms, and the third side they give hybrid search."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index import bridge
from papersift.index.embeddings import Encoder
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, build_model
from papersift.search.crosslingual import cjk_segments, english_query
from papersift.search.hybrid import HybridRetriever
from papersift.search.query import parse_query
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    build_model(DEFAULT_MODEL, log=lambda _: None)
    return Encoder(DEFAULT_MODEL)


def test_segments_are_runs_and_their_words():
    assert cjk_segments("graph neural networks") == []
    assert cjk_segments("LoRA 低秩 适配") == ["低秩", "适配"]
    segments = cjk_segments("策略梯度定理，函数逼近")
    assert segments[0] == "策略梯度定理" and "策略" in segments and "梯度" in segments
    assert "函数逼近" in segments
    assert len(segments) == len(set(segments))
    assert all(len(segment) >= 2 for segment in segments)  # one-character words carry grammar


def test_a_run_of_one_known_word_and_single_characters_keeps_that_word():
    # jieba: 图 | 神经网络; the whole run is no CC-CEDICT headword, so without the word nothing carries over
    assert cjk_segments("图神经网络") == ["图神经网络", "神经网络"]
    assert english_query("图神经网络") == "neural network"
    assert cjk_segments("神经网络") == ["神经网络"]  # one word: the run alone


@pytest.fixture(scope="module")
def hybrid_dir(sample_data_dir, tmp_path_factory, encoder):
    """The sample papers with random vectors (the dense side is noise here) and a real bridge
    over the sample's 2,000 most frequent terms."""
    from tests.search.conftest import indexed_copy

    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("crosslingual"))
    seq_papers = list(Store(data_dir, readonly=True).iter_papers())
    papers = [paper for _, paper in seq_papers]
    vectors = np.random.default_rng(3).standard_normal((len(papers), encoder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    last_seq = max(seq for seq, _ in seq_papers)
    write_index(data_dir, encoder.name, [paper.id for paper in papers], vectors, len(papers), last_seq)
    terms = bridge.corpus_terms(papers, max_terms=2000)
    write_index(data_dir, bridge.terms_model(encoder.name), terms, encoder.encode_queries(terms, batch_size=128),
                len(papers), last_seq, scan_min_rows=len(terms) + 1)
    return data_dir


@pytest.mark.models
def test_english_query_keeps_latin_words_and_adds_terms(hybrid_dir, encoder):
    term_bridge = bridge.TermBridge.open(hybrid_dir, encoder.name)
    assert english_query("graph neural networks", encoder, term_bridge) is None
    carried = english_query("GNN 强化学习", encoder, term_bridge)
    assert carried.startswith("GNN ") and "reinforcement" in carried


@pytest.mark.models
def test_a_chinese_query_gets_a_keyword_ranking_of_its_english_terms(hybrid_dir, encoder):
    service = SearchService(hybrid_dir)
    retriever = HybridRetriever(DenseRetriever(hybrid_dir, service, encoder=encoder), service)
    query = parse_query("强化学习")
    translated = retriever.translated_ranking(query, 20)
    assert translated, "the carried-over query found nothing"
    top = [service.get(paper_id) for paper_id, _ in translated[:10]]
    about_rl = ["reinforcement" in f"{p.title} {p.abstract}".lower() for p in top]
    # far above chance (about 1 in 20 sample papers mention reinforcement); further down, "强化"
    # alone maps to a looser term of this small sample ("rank"): the method's noise
    assert about_rl[:2] == [True, True], [p.title for p in top]
    assert retriever.translated_ranking(parse_query("reinforcement learning"), 20) is None
    # filters typed with the query still apply to the carried-over side
    filtered = retriever.translated_ranking(parse_query("强化学习 venue:ICLR"), 20)
    assert filtered and all(service.get(paper_id).venue == "ICLR" for paper_id, _ in filtered)
    # and the fused ranking lifts what the carried-over side found above the random dense side's
    # noise. (The bridge's reading "reinforcement learning rank learn" gave one paper a BM25 spike
    # that led the fusion; the glossary's "reinforcement learning" scores many RL papers alike,
    # so a random dense paper may come first, but the reading's best are among the first ten.)
    fused = [paper_id for paper_id, _ in retriever.retrieve(service_request("强化学习"), query, 20)]
    assert {paper_id for paper_id, _ in translated[:3]} & set(fused[:10])


def service_request(text: str):
    from papersift.search.types import SearchRequest

    return SearchRequest(query=text, mode="hybrid")


def test_load_resources_loads_the_dictionary_glossary_converters_and_names():
    from papersift.search import glossary as bilingual
    from papersift.search import zhnames, zhnorm
    from papersift.search.cedict import glossary
    from papersift.search.crosslingual import load_resources
    from papersift.search.glossary import zh_terms

    loaded = (glossary, zh_terms, zhnorm._converter, zhnames.surnames, bilingual.glossary)
    for cached in loaded:
        cached.cache_clear()
    load_resources()
    assert [cached.cache_info().currsize for cached in loaded] == [1, 1, 2, 1, 1]  # both OpenCC configs
    assert "_rows_of_en" in vars(bilingual.glossary())  # the English side too (the phrase neighbours read back through it)


def test_without_a_bridge_every_dictionary_sense_carries_over():
    from papersift.search.crosslingual import dictionary_terms

    assert dictionary_terms(["评论家", "没有这个词", "评论家"]) == ["critic", "reviewer"]
    carried = english_query("LoRA 评论家")
    assert carried == "LoRA critic reviewer"
    assert english_query("graph neural networks") is None


def test_with_paper_counts_a_segment_keeps_only_the_senses_papers_use():
    from papersift.search.crosslingual import SENSE_SHARE, dictionary_terms, used_senses

    papers = {"regret": 500, "lament": 60, "sorri": 3}.get  # analyzed (stemmed) terms -> papers
    doc_freq = lambda term: papers(term, 0)  # noqa: E731
    # a sense of several words counts its rarest word; a sense no paper has never carries over
    assert used_senses(("regret", "sorry that", "lament", "rue"), doc_freq) == ["regret", "lament"]
    assert 60 >= SENSE_SHARE * 500 > 3
    assert used_senses(("rue", "woe"), doc_freq) == []
    assert "sorry that" in dictionary_terms(["遗憾"]) and dictionary_terms(["遗憾"], doc_freq) == ["regret"]
    assert english_query("bandit 遗憾", doc_freq=doc_freq) == "bandit regret"


@pytest.mark.models
def test_only_a_bridged_retriever_picks_up_the_term_bridge(hybrid_dir, encoder, tmp_path):
    import shutil

    from tests.search.conftest import indexed_copy

    service = SearchService(hybrid_dir)
    assert DenseRetriever(hybrid_dir, service, encoder=encoder).bridge is not None
    # the English model's retriever (hybrid.py) never looks for a bridge, even where one lies
    data_dir = indexed_copy(hybrid_dir, tmp_path / "english")
    english = "all-MiniLM-L6-v2"
    shutil.copytree(hybrid_dir / "vectors" / bridge.terms_model(encoder.name),
                    data_dir / "vectors" / bridge.terms_model(english))
    assert bridge.TermBridge.open(data_dir, english) is not None
    assert DenseRetriever(data_dir, SearchService(data_dir), model=english).bridge is None


def test_the_dense_side_embeds_a_chinese_query_with_its_english_reading(hybrid_dir, encoder):
    dense = DenseRetriever(hybrid_dir, SearchService(hybrid_dir), encoder=encoder)
    reading = dense.reading_for("图神经网络")
    assert reading.english and reading.english != "图神经网络"
    both = encoder.encode_query("图神经网络") + encoder.encode_query(reading.english)
    np.testing.assert_allclose(dense.query_vector("图神经网络"), both / np.linalg.norm(both), atol=1e-5)
    np.testing.assert_allclose(dense.query_vector("graph neural networks"), encoder.encode_query("graph neural networks"),
                               atol=1e-6)  # an English query is embedded as it is


def test_pasted_chinese_text_is_also_ranked_by_its_english_reading(hybrid_dir, encoder):
    # the dense side is noise here and the papers have no Chinese words: only the reading finds GNN papers
    service = SearchService(hybrid_dir)
    retriever = HybridRetriever(DenseRetriever(hybrid_dir, service, encoder=encoder), service)
    request = SearchRequest(like_text="图神经网络", mode="hybrid")
    ranked = retriever.like_text_ranking(request, parse_query(""), 10)
    words = retriever.reading_for("图神经网络").english.lower().split()
    assert "network" in " ".join(words)  # "graph neural networks" (glossary + composition)
    # the reading's keyword list is fused in: papers with its words are among the first ten
    # (with random vectors beside it, a noise paper may come first)
    about = [all(word.rstrip("s") in f"{paper.title} {paper.abstract}".lower() for word in words)
             for paper in (service.get(paper_id) for paper_id, _ in ranked[:10])]
    assert any(about), words


@pytest.mark.models
def test_search_as_typed_ranks_the_chinese_text_by_its_own_embedding(hybrid_dir, encoder):
    # "按原文检索": no English reading; the papers are English, so the Chinese words are searched
    # by meaning: the ranking is the index's for the embedding of the text alone
    from papersift.index.vectors import VectorIndex
    from papersift.search.types import SearchRequest

    service = SearchService(hybrid_dir)
    service.register_retriever("semantic", DenseRetriever(hybrid_dir, service, encoder=encoder))
    literal = service.search(SearchRequest(query="强化学习", mode="keyword", size=10, literal=True))
    assert literal.reading is None and literal.total_counts == "ranked" and literal.total > 0
    index = VectorIndex.open(hybrid_dir, encoder.name)
    expected = [paper_id for paper_id, _ in index.search_ids(encoder.encode_query("强化学习"), 10)]
    assert [hit.paper.id for hit in literal.hits] == expected
    # with its reading, the query's vector is another one (averaged with "reinforcement learning")
    read = service.search(SearchRequest(query="强化学习", mode="semantic", size=10))
    assert read.reading is not None and [hit.paper.id for hit in read.hits] != expected


def test_a_piece_is_found_in_its_token_as_the_spread_out_regex_finds_it():
    # _piece_spans finds each piece's characters in order with only non-word characters between
    # them; scanned, not compiled a pattern a piece, the same places as the regex on every case
    import random
    import re

    from papersift.search.crosslingual import _spread_in

    alphabet = "状态动作值函数a1_- ·，（）"
    draw = random.Random(32)
    for _ in range(20_000):
        token = "".join(draw.choice(alphabet) for _ in range(draw.randint(1, 12)))
        start = draw.randint(0, len(token) - 1)
        piece = token[start:start + draw.randint(1, 4)] if draw.random() < 0.7 else \
            "".join(draw.choice(alphabet) for _ in range(draw.randint(1, 3)))
        at = draw.randint(0, len(token))
        expected = re.compile(r"\W*".join(map(re.escape, piece))).search(token, at)
        assert _spread_in(token, piece, at) == (expected.span() if expected else None), (token, piece, at)
    assert _spread_in("状态-动作值函数", "状态动作", 0) == (0, 5)
