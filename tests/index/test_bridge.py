"""The term bridge: corpus terms, building and opening it, and Chinese words finding their English terms."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index import bridge
from papersift.index.embeddings import Encoder
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, build_model
from papersift.record import Paper

# What a corpus's frequent terms look like, and distractors from the same field.
FIELD_TERMS = [
    "reinforcement learning", "graph neural networks", "adversarial examples", "image segmentation",
    "language models", "bayesian inference", "convex optimization", "generative adversarial networks",
    "policy gradient", "kernel methods", "variational inference", "knowledge distillation",
    "federated learning", "speech recognition",
]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    build_model(DEFAULT_MODEL, log=lambda _: None)  # no-op when scripts/setup.sh has built it
    return Encoder(DEFAULT_MODEL)


def paper(number: int, title: str, abstract: str | None = None) -> Paper:
    return Paper(id=f"ICML-2020-{number}", title=title, abstract=abstract, venue="ICML", year=2020)


def test_paper_terms_are_words_and_phrases_that_do_not_start_or_end_with_a_stop_word():
    terms = bridge.paper_terms(paper(1, "Graph Neural Networks for Molecules",
                                     "We study the over-smoothing of deep GNNs. Results improve."))
    assert {"graph", "graph neural", "graph neural networks", "networks for molecules", "over-smoothing",
            "deep gnns", "results improve"} <= terms
    assert not {"for molecules", "the over-smoothing", "of deep", "gnns results"} & terms  # nor across a full stop
    assert all(len(term.split()) <= bridge.MAX_WORDS for term in terms)


def test_corpus_terms_keep_terms_of_several_papers_most_frequent_first():
    papers = [paper(1, "Policy gradient methods", "Policy gradient with baselines."),
              paper(2, "Natural policy gradient"), paper(3, "Policy search", "Gradient estimates.")]
    # "gradient" and "policy" are in all three papers (ties go alphabetically), "policy gradient" in two
    assert bridge.corpus_terms(papers, min_df=2) == ["gradient", "policy", "policy gradient"]
    assert bridge.corpus_terms(papers, min_df=2, max_terms=1) == ["gradient"]


@pytest.mark.models
def test_build_bridge_publishes_the_corpus_terms_and_knows_when_it_is_stale(encoder, tmp_path):
    papers = [paper(i, FIELD_TERMS[i % len(FIELD_TERMS)]) for i in range(3 * len(FIELD_TERMS))]  # each in 3
    embedded: list[str] = []

    def embed(terms: list[str]) -> np.ndarray:
        embedded.extend(terms)
        return encoder.encode_queries(terms, batch_size=64)

    assert bridge.is_stale(tmp_path, encoder.name, len(papers), last_seq=7)
    folder = bridge.build_bridge(tmp_path, papers, encoder, last_seq=7, embed_terms=embed)
    assert set(FIELD_TERMS) <= set(embedded) and embedded == bridge.corpus_terms(papers)
    assert not bridge.is_stale(tmp_path, encoder.name, len(papers), last_seq=7)
    assert bridge.is_stale(tmp_path, encoder.name, len(papers), last_seq=8)  # papers changed since
    opened = bridge.TermBridge.open(tmp_path, encoder.name)
    assert opened is not None and opened.folder == folder and opened.terms == embedded


@pytest.mark.models
def test_chinese_words_find_their_english_terms(encoder, tmp_path):
    write_index(tmp_path, bridge.terms_model(encoder.name), FIELD_TERMS, encoder.encode_queries(FIELD_TERMS),
                papers_total=len(FIELD_TERMS), last_seq=1)
    opened = bridge.TermBridge.open(tmp_path, encoder.name)
    chinese = ["强化学习", "图神经网络", "对抗样本", "联邦学习", "知识蒸馏", "语音识别", "变分推断"]
    english = ["reinforcement learning", "graph neural networks", "adversarial examples", "federated learning",
               "knowledge distillation", "speech recognition", "variational inference"]
    assert opened.nearest_terms(encoder.encode_queries(chinese)) == english
    assert opened.nearest_terms(np.zeros((0, encoder.dim), dtype=np.float32)) == []


def test_no_bridge_before_it_is_built(tmp_path):
    assert bridge.TermBridge.open(tmp_path, DEFAULT_MODEL) is None


@pytest.mark.models
def test_translate_embeds_each_new_segment_once(encoder, tmp_path):
    write_index(tmp_path, bridge.terms_model(encoder.name), FIELD_TERMS, encoder.encode_queries(FIELD_TERMS),
                papers_total=len(FIELD_TERMS), last_seq=1)
    opened = bridge.TermBridge.open(tmp_path, encoder.name)
    embedded: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return encoder.encode_queries(texts)

    assert opened.translate(["强化学习", "联邦学习", "强化学习"], embed) == [
        "reinforcement learning", "federated learning", "reinforcement learning"]
    assert opened.translate(["联邦学习", "知识蒸馏"], embed) == ["federated learning", "knowledge distillation"]
    assert embedded == ["强化学习", "联邦学习", "知识蒸馏"]
    assert opened.translate([], embed) == []


def unit_rows(*rows: list[float]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_dictionary_senses_that_are_corpus_terms_constrain_the_choice(tmp_path):
    terms = ["review", "critic", "reviewer", "actor"]
    write_index(tmp_path, bridge.terms_model("toy"), terms,
                unit_rows([1, 0, 0], [0.8, 0.6, 0], [0.6, 0.8, 0], [0, 0, 1]), papers_total=4, last_seq=1)
    opened = bridge.TermBridge.open(tmp_path, "toy")
    segment = unit_rows([1, 0.1, 0])  # nearest of all terms: "review"
    assert opened.nearest_terms(segment) == ["review"]
    # the nearest of the senses that are terms; a sense the corpus lacks ("judge") is ignored
    assert opened.nearest_terms(segment, [["judge", "reviewer", "critic"]]) == ["critic"]
    # no sense is a corpus term: every term competes again
    assert opened.nearest_terms(segment, [["judge"]]) == ["review"]
    assert opened.nearest_terms(np.vstack([segment, segment]), [[], ["actor"]]) == ["review", "actor"]


def test_translate_asks_for_senses_once_per_new_segment(tmp_path):
    terms = ["review", "critic"]
    write_index(tmp_path, bridge.terms_model("toy"), terms, unit_rows([1, 0], [0.7, 0.7]), papers_total=2, last_seq=1)
    opened = bridge.TermBridge.open(tmp_path, "toy")
    asked: list[str] = []

    def senses(segment: str) -> tuple[str, ...]:
        asked.append(segment)
        return ("critic",) if segment == "评论家" else ()

    def embed(texts: list[str]) -> np.ndarray:
        return unit_rows(*[[1, 0.05]] * len(texts))

    assert opened.translate(["评论家", "评论"], embed, senses) == ["critic", "review"]
    assert opened.translate(["评论家"], embed, senses) == ["critic"]
    assert asked == ["评论家", "评论"]
