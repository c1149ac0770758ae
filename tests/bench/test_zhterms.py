"""bench zhterms: Chinese terms against their English twins through the service."""

from __future__ import annotations

import json

import pytest

from papersift.bench.zhterms import load, markdown, run, term_half

TWINS = {"000": "graph neural networks", "001": "zzzunmatchedword"}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zhterms")
    queries = [("zh-000", "zh", "图神经网络"), ("en-000", "en", "graph neural networks"),
               ("zh-001", "zh", "龘龘"), ("en-001", "en", "zzzunmatchedword")]
    (folder / "queries_dev.jsonl").write_text("".join(
        json.dumps({"_id": qid, "text": text, "lang": lang, "term_en": TWINS[qid[-3:]]}, ensure_ascii=False) + "\n"
        for qid, lang, text in queries),
        encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def indexed_dir(sample_data_dir, tmp_path_factory):
    from tests.search.conftest import indexed_copy

    return indexed_copy(sample_data_dir, tmp_path_factory.mktemp("zhterms_indexed"))


def test_the_halves_split_terms_the_same_way_every_time():
    halves = [term_half(f"{n:03d}") for n in range(300)]
    assert halves == [term_half(f"{n:03d}") for n in range(300)]
    assert 120 < halves.count("A") < 180  # about half each


def test_zh_and_en_are_scored_on_the_same_qrels(dataset, indexed_dir):
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    relevant = [hit.paper.id for hit in SearchService(indexed_dir).search(
        SearchRequest(query="graph neural networks", mode="keyword", size=3)).hits]
    (dataset / "qrels_dev.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{qid}\t{paper_id}\t1\n" for qid in ("zh-000", "en-000") for paper_id in relevant), encoding="utf-8")
    queries, qrels = load(dataset)
    assert [q.term for q in queries] == ["000", "000", "001", "001"] and qrels["zh-000"] == set(relevant)
    report = run(indexed_dir, ["keyword"], dataset)
    summary = report["modes"]["keyword"]["all"]
    assert summary["en"]["mrr@10"] == 0.5 and summary["zh"]["mrr@10"] == 0.5  # term 000 found first, 001 not at all
    assert summary["ratio_mrr"] == 1.0 and summary["zh"]["recall@10"] == 0.5
    assert report["per_query"]["keyword"]["zh-000"]["english"] == "graph neural networks"
    assert "| keyword | all | 0.500 | 0.500 | 1.00 |" in markdown(report)


def test_the_ceiling_counts_twins_among_the_candidates_and_the_oracle_over_them(dataset, indexed_dir):
    from papersift.bench.zhterms import ceiling, ceiling_markdown
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    relevant = [hit.paper.id for hit in SearchService(indexed_dir).search(
        SearchRequest(query="graph neural networks", mode="keyword", size=3)).hits]
    (dataset / "qrels_dev.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{qid}\t{paper_id}\t1\n" for qid in ("zh-000", "en-000") for paper_id in relevant), encoding="utf-8")
    report = ceiling(indexed_dir, dataset, neighbours=(5,))
    by_k = report["summary"]["all"]["by_neighbours"]
    # term 000 reads as its twin (found first), term 001 has no candidate at all
    assert by_k["0"] == {"twin_among_candidates": 0.5, "oracle_mrr@10": 0.5, "oracle_ratio": 1.0}
    assert report["summary"]["all"]["en_mrr@10"] == 0.5
    assert [row["qid"] for row in report["per_term"]] == ["zh-000", "zh-001"]
    assert "| all | 0 | 0.50 | 0.500 | 0.500 | 1.00 |" in ceiling_markdown(report)


def test_traditional_queries_and_shown_sure_readings_are_reported(dataset, indexed_dir, monkeypatch):
    # without a glossary a composition is never shown as sure: nothing shown sure
    from tests.search.test_reading_order import FakeGlossary

    from papersift.search import service

    monkeypatch.setattr(service, "term_glossary", lambda: FakeGlossary([]))
    report = run(indexed_dir, ["keyword"], dataset, traditional=True)
    zh = report["per_query"]["keyword"]["zh-000"]
    assert report["traditional"] and zh["text"] == "圖神經網絡"  # OpenCC s2t of 图神经网络
    assert zh["english"] == "graph neural networks"  # read as its simplified form
    assert zh["terms"][0]["source"] == "composition" and not zh["terms"][0]["shown_sure"]
    sure = report["shown_sure"]["keyword"]["all"]
    assert (sure["terms"], sure["shown_sure"], sure["precision"]) == (2, 0, 0.0)
    assert "| keyword | all | 0 | 0 | 2 | 0.00 |" in markdown(report)


def test_shown_sure_precision_counts_terms_read_as_their_english_twin():
    from papersift.bench.zhterms import ModeResult, TermQuery, shown_sure

    queries = [TermQuery(f"zh-00{n}", f"00{n}", "zh", "x", english) for n, english in
               enumerate(["graph neural networks", "backpropagation", "ensemble learning"])]
    sure = {"source": "glossary", "shown_sure": True}
    result = ModeResult("keyword", {
        "zh-000": {"english": "graph neural network", "terms": [sure]},  # the same analyzed words: right
        "zh-001": {"english": "backward propagation", "terms": [sure]},  # shown sure and wrong
        "zh-002": {"english": "integrated learning", "terms": [{"source": "composition", "shown_sure": False}]},
    })
    row = shown_sure(result, queries)["all"]
    assert (row["shown_sure"], row["right"], row["precision"]) == (2, 1, 0.5)
    assert row["by_source"] == {"glossary": {"shown_sure": 2, "right": 1}}


def test_a_reading_is_the_term_in_any_form_papers_write_it():
    from papersift.bench.zhterms import same_term

    assert same_term("graph neural network", "Graph Neural Networks")  # the same analyzed words
    assert same_term("multilayer perceptron", "Multi-Layer Perceptron")  # hyphen and space
    assert same_term("backpropagation", "Back Propagation")
    assert not same_term("integrated learning", "Ensemble Learning") and not same_term("", "")
