"""The hybrid retriever picks its dense side by the query's language and the English index's coverage."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL
from papersift.search.hybrid import ENGLISH_MODEL, HybridRetriever
from papersift.search.query import parse_query
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store


class FixedEncoder:
    """Every query embeds to one vector: which index answered shows in the ranking alone."""

    dim = 384

    def __init__(self, vector: np.ndarray):
        self.vector = vector

    def encode_query(self, text: str) -> np.ndarray:
        return self.vector

    def encode_passages(self, texts, batch_size: int = 32) -> np.ndarray:
        return np.tile(self.vector, (len(texts), 1))


@pytest.fixture(scope="module")
def two_model_dir(sample_data_dir, tmp_path_factory):
    from tests.search.conftest import indexed_copy

    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("hybrid"))
    seq_papers = list(Store(data_dir, readonly=True).iter_papers())
    ids = [paper.id for _, paper in seq_papers]
    last_seq = max(seq for seq, _ in seq_papers)
    for model, vectors in random_vectors(len(ids)).items():
        write_index(data_dir, model, ids, vectors, len(ids), last_seq)
    return data_dir, ids, last_seq


def random_vectors(count: int) -> dict[str, np.ndarray]:
    """Each model's unit vectors for the fixture (its own draw per model)."""
    rng = np.random.default_rng(5)
    drawn = {}
    for model in (DEFAULT_MODEL, ENGLISH_MODEL):
        vectors = rng.standard_normal((count, 384)).astype(np.float32)
        drawn[model] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return drawn


def retriever_for(data_dir) -> HybridRetriever:
    service = SearchService(data_dir)
    query_vector = np.ones(384, dtype=np.float32) / np.sqrt(384)
    multilingual = DenseRetriever(data_dir, service, encoder=FixedEncoder(query_vector))
    english = DenseRetriever(data_dir, service, model=ENGLISH_MODEL, encoder=FixedEncoder(query_vector))
    return HybridRetriever(multilingual, service, english=english)


def test_english_queries_use_the_english_model_and_chinese_ones_e5(two_model_dir):
    data_dir, _, _ = two_model_dir
    hybrid = retriever_for(data_dir)
    assert hybrid.dense_for("graph neural networks") is hybrid.english
    assert hybrid.dense_for("图神经网络 GNN") is hybrid.dense
    request = SearchRequest(query="graph neural networks", mode="hybrid")
    dense_ids = [paper_id for paper_id, _ in hybrid.english.retrieve(request, parse_query(request.query), 200)]
    fused = [paper_id for paper_id, _ in hybrid.retrieve(request, parse_query(request.query), 50)]
    multilingual_ids = [paper_id for paper_id, _ in hybrid.dense.retrieve(request, parse_query(request.query), 200)]
    lexical_ids = {paper_id for paper_id, _ in hybrid.lexical_ranking(parse_query(request.query), 200)}
    # the English model's best paper made it into the fused list; e5's best only if another side has it
    assert dense_ids[0] in fused
    assert multilingual_ids[0] not in fused or multilingual_ids[0] in lexical_ids | set(dense_ids)


def test_a_partly_embedded_english_index_is_not_used(two_model_dir, tmp_path):
    data_dir, ids, last_seq = two_model_dir
    vectors = np.eye(len(ids), 384, dtype=np.float32)[:100] + 1e-3
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    write_index(data_dir, ENGLISH_MODEL, ids[:100], vectors, len(ids), last_seq)  # 100 of 2,000 papers
    try:
        hybrid = retriever_for(data_dir)
        assert hybrid.english.coverage() < 0.1
        assert hybrid.dense_for("graph neural networks") is hybrid.dense
    finally:
        write_index(data_dir, ENGLISH_MODEL, ids, random_vectors(len(ids))[ENGLISH_MODEL], len(ids), last_seq)


def test_without_an_english_model_e5_serves_every_query(two_model_dir):
    data_dir, _, _ = two_model_dir
    service = SearchService(data_dir)
    hybrid = HybridRetriever(DenseRetriever(data_dir, service), service)
    assert hybrid.dense_for("graph neural networks") is hybrid.dense


def test_without_a_term_bridge_chinese_queries_are_carried_over_by_the_dictionary(two_model_dir):
    # the Typesense dense retriever has no bridge (and here no encoder): hybrid must not need them
    from papersift.backends.typesense_vectors import TypesenseDenseRetriever

    data_dir, _, _ = two_model_dir
    service = SearchService(data_dir)
    dense = TypesenseDenseRetriever(backend=None, encoder=None)
    hybrid = HybridRetriever(dense, service)
    translated = hybrid.translated_ranking(parse_query("强化学习 贝叶斯"), 20)
    # "贝叶斯" -> "bayes": the sample's Bayesian papers (the English query as typed finds them too)
    bayes = {paper_id for paper_id, _ in hybrid.lexical_ranking(parse_query("bayes"), 20)}
    assert translated and bayes and {paper_id for paper_id, _ in translated} & bayes
    assert hybrid.translated_ranking(parse_query("graph neural networks"), 20) is None


def test_the_ranking_does_not_depend_on_how_many_papers_are_asked_for(two_model_dir):
    # z-scores are taken over each side's list: eval (k=100) must rank as the page (k=1000) does
    data_dir, _, _ = two_model_dir
    hybrid = retriever_for(data_dir)
    request = SearchRequest(query="graph neural networks for molecules", mode="hybrid")
    query = parse_query(request.query)
    deep = hybrid.retrieve(request, query, 1000)
    shallow = hybrid.retrieve(request, query, 20)
    assert len(shallow) == 20
    assert shallow == deep[:20]


def test_pasted_text_fuses_keyword_e5_and_the_english_model(two_model_dir):
    data_dir, _, _ = two_model_dir
    hybrid = retriever_for(data_dir)
    paragraph = "We train graph neural networks on molecules and predict their properties from the graph structure."
    request = SearchRequest(query="", mode="hybrid", like_text=paragraph)
    query = parse_query("")
    fused = [paper_id for paper_id, _ in hybrid.retrieve(request, query, 50)]
    english_best = hybrid.english.retrieve(request, query, 1)[0][0]
    e5_best = hybrid.dense.retrieve(request, query, 1)[0][0]
    assert english_best != e5_best  # each index has its own random vectors
    assert english_best in fused and e5_best in fused
    chinese = SearchRequest(query="", mode="hybrid", like_text="我们在分子图上训练图神经网络并预测分子性质。")
    fused_chinese = {paper_id for paper_id, _ in hybrid.retrieve(chinese, query, 50)}
    assert english_best not in fused_chinese  # CJK text: e5 and keywords only


def test_a_stored_papers_neighbours_come_from_both_models(two_model_dir):
    data_dir, ids, _ = two_model_dir
    hybrid = retriever_for(data_dir)
    request = SearchRequest(query="", mode="hybrid", like_id=ids[7])
    query = parse_query("")
    fused = [paper_id for paper_id, _ in hybrid.retrieve(request, query, 20)]
    e5_best = hybrid.dense.retrieve(request, query, 1)[0][0]
    english_best = hybrid.english.retrieve(request, query, 1)[0][0]
    assert e5_best != english_best and {e5_best, english_best} <= set(fused)
    assert ids[7] not in fused and len(fused) == 20


def test_a_stored_papers_neighbours_without_the_english_model_are_e5s(two_model_dir):
    data_dir, ids, _ = two_model_dir
    service = SearchService(data_dir)
    hybrid = HybridRetriever(DenseRetriever(data_dir, service), service)
    request = SearchRequest(query="", mode="hybrid", like_id=ids[7])
    query = parse_query("")
    assert hybrid.retrieve(request, query, 20) == hybrid.dense.retrieve(request, query, 20)


class ReadingKeywordSide:
    """A keyword side that records how it is asked to read a query."""

    backend = None

    def __init__(self):
        self.asked: list[tuple[str, bool]] = []

    def reading_of(self, text: str, encoder=None, bridge=None, neighbours: bool = True):
        self.asked.append((text, neighbours))


class VectorsOnly:
    """A dense side without a reading of its own (the cluster's vector search)."""

    index = None


def test_without_a_dense_reading_a_description_is_read_without_phrase_neighbours():
    # as the embedded dense side reads it (semantic.py reading_for): a term with them, a description without
    keyword = ReadingKeywordSide()
    hybrid = HybridRetriever(VectorsOnly(), keyword)  # type: ignore[arg-type]
    description = "不使用平行语料，通过无监督对齐两种语言的单语词向量空间"
    hybrid.reading_for("图神经网络")
    hybrid.reading_for(description)
    assert keyword.asked == [("图神经网络", True), (description, False)]


class CountingKeywordSide:
    """A keyword side whose papers per term can be counted (as the embedded index's)."""

    backend = None
    term_lexicon = None

    def phrase_papers(self, text: str) -> int:
        return 0

    def term_doc_freq(self, term: str) -> int:
        return 1


def test_a_translated_ranking_bounds_its_spellings_by_the_papers_per_term(monkeypatch):
    # as keyword pages do (compounds.gap_spellings skips the spellings no paper can hold more of):
    # phrase_query is given the keyword side's counts, not None
    from types import SimpleNamespace

    from papersift.search import hybrid as hybrid_module

    keyword = CountingKeywordSide()
    given: list[tuple] = []
    monkeypatch.setattr(hybrid_module, "phrase_query", lambda *args: given.append(args))
    hybrid = HybridRetriever(VectorsOnly(), keyword)  # type: ignore[arg-type]
    monkeypatch.setattr(hybrid, "reading_for", lambda text: SimpleNamespace(searched="graph networks", authors=()))
    monkeypatch.setattr(hybrid, "lexical_ranking", lambda query, k, candidate_ids=None: [])
    hybrid.translated_ranking(parse_query("图网络"), 20)
    assert len(given) == 1 and given[0][4] == keyword.term_doc_freq
