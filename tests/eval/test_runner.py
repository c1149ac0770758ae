"""Evaluation end to end on small real slices: corpus cache, pools, lang slices, exclusions."""

from __future__ import annotations

import gzip

import orjson
import pytest

from papersift.eval.datasets import BenchmarkError, load_qrels, load_queries, read_corpus
from papersift.eval.runner import corpus_data_dir, evaluate
from papersift.index import lexical
from papersift.search.service import SearchService


@pytest.fixture(scope="module")
def scifact_slice(shared_data, tmp_path_factory):
    """The SciFact dev queries whose relevant documents are among 400 kept documents."""
    folder = tmp_path_factory.mktemp("scifact")
    qrels = load_qrels(shared_data / "scifact" / "qrels_dev.tsv")
    relevant = {doc for docs in qrels.values() for doc in docs}
    with gzip.open(shared_data / "scifact" / "corpus.jsonl.gz", "rb") as handle:
        records = [orjson.loads(line) for line in handle]
    kept = [r for r in records if r["_id"] in relevant][:200] + [r for r in records if r["_id"] not in relevant][:200]
    kept_ids = {r["_id"] for r in kept}
    corpus = folder / "corpus.jsonl"
    corpus.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in kept))
    queries = [q for q in load_queries(shared_data / "scifact" / "queries_dev.jsonl")
               if q.id in qrels and set(qrels[q.id]) <= kept_ids]
    return corpus, queries, {q.id: qrels[q.id] for q in queries}


def test_corpus_index_is_built_once_per_content(scifact_slice, tmp_path):
    corpus, _, _ = scifact_slice
    first = corpus_data_dir(corpus, tmp_path)
    generation = lexical.current_generation(first)
    assert corpus_data_dir(corpus, tmp_path) == first and lexical.current_generation(first) == generation
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(corpus.read_bytes() + b'{"_id": "extra", "title": "t", "text": "x"}\n')
    assert corpus_data_dir(changed, tmp_path) != first


def test_bm25_on_a_scifact_slice_finds_the_claims_evidence(scifact_slice, tmp_path):
    corpus, queries, qrels = scifact_slice
    result = evaluate(SearchService(corpus_data_dir(corpus, tmp_path)), queries, qrels, "keyword")
    assert result.queries == len(queries) > 50
    # 400 documents, half of them relevant to some claim: BM25 must do far better than chance.
    assert result.metrics["all"]["ndcg@10"] > 0.6
    assert set(result.metrics["all"]) == {"mrr@10", "recall@10", "recall@100", "ndcg@10", "ndcg@20"}


def test_pools_restrict_ranking_and_query_paper_is_excluded(shared_data, tmp_path):
    csf = shared_data / "csfcube"
    queries = load_queries(csf / "queries_dev.jsonl")[:3]
    qrels = {q.id: docs for q, docs in ((q, load_qrels(csf / "qrels_dev.tsv").get(q.id)) for q in queries) if docs}
    pools = orjson.loads((csf / "pools_dev.json").read_bytes())
    service = SearchService(corpus_data_dir(csf / "corpus.jsonl.gz", tmp_path))
    from papersift.eval.runner import run_queries

    run = run_queries(service, queries, "keyword", {q.id: pools[q.id] for q in queries})
    for query in queries:
        assert set(run[query.id]) <= set(pools[query.id])
        assert not set(run[query.id]) & query.exclude_ids
    whole = run_queries(service, queries, "keyword")
    assert all(query.exclude_ids.isdisjoint(whole[query.id]) for query in queries)
    assert evaluate(service, queries, qrels, "keyword", pools).queries == len(qrels)


def test_lang_slices(shared_data, sample_data_dir, tmp_path):
    queries = load_queries(shared_data / "knownitem" / "queries_dev.jsonl")
    qrels = load_qrels(shared_data / "knownitem" / "qrels_dev.tsv")
    query_lines = (shared_data / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines()
    target_titles = {q["_id"]: q["target_title"] for q in map(orjson.loads, query_lines)}
    # A corpus of the targets' titles only: a query equal to its target's title must rank it first.
    corpus = tmp_path / "titles.jsonl"
    corpus.write_bytes(b"".join(orjson.dumps({"_id": next(iter(qrels[qid])), "title": title, "text": ""}) + b"\n"
                                for qid, title in target_titles.items()))
    service = SearchService(corpus_data_dir(corpus, tmp_path))
    as_titles = [type(q)(q.id, target_titles[q.id], q.lang) for q in queries]
    result = evaluate(service, as_titles, qrels, "keyword")
    assert set(result.metrics) == {"all", "lang=en", "lang=zh"}
    assert result.metrics["all"]["mrr@10"] > 0.95


def test_bad_files_name_the_line(tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"_id": "1", "text": "ok"}\nnot json\n')
    with pytest.raises(BenchmarkError, match=":2: not JSON"):
        load_queries(queries)
    qrels = tmp_path / "r.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n1\td1\n")
    with pytest.raises(BenchmarkError, match=":2: expected"):
        load_qrels(qrels)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "x"}\n')
    with pytest.raises(BenchmarkError, match="title"):
        list(read_corpus(corpus))
