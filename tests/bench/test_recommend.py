"""papersift bench recommend: metrics checked against hand-computed rankings; the command on
the labelled fixture papers writes the report with a row per (k, method)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from papersift.bench.recommend import KS, precision_ndcg
from papersift.cli import app
from papersift.record import paper_from_dict
from papersift.store import Store


def test_precision_and_ndcg_of_known_rankings():
    assert precision_ndcg([True] * 20, 30) == (1.0, 1.0)
    assert precision_ndcg([False] * 20, 30) == (0.0, 0.0)
    precision, ndcg = precision_ndcg([False, True] + [False] * 18, 1)
    assert precision == 1 / 20 and math.isclose(ndcg, 1 / math.log2(3))


@pytest.mark.drill
def test_the_command_reports_every_k_and_method(labeled_records, tmp_path):
    data_dir = tmp_path / "data"
    Store(data_dir).upsert(paper_from_dict(record) for record in labeled_records)
    result = CliRunner().invoke(app, ["bench", "recommend", "--data-dir", str(data_dir), "--draws", "1",
                                      "--reports-dir", str(tmp_path / "reports"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # No vectors in this data dir: knn (embeddings only) has nothing to run on and is left out.
    assert {(row["k"], row["method"]) for row in report["rows"]} == {(k, method) for k in KS
                                                                     for method in ("papersift", "tfidf_svm")}
    assert all(row["users"] == "topic" and 0 <= row["precision@20"] <= 1 and 0 <= row["ndcg@20"] <= 1
               for row in report["rows"])
    assert report["latency"]["tag_papers"] == 50 and report["latency"]["p50_ms"] > 0
    assert json.loads((tmp_path / "reports" / "bench-recommend.json").read_text())["rows"] == report["rows"]
    assert "| topic | 20 | papersift |" in (tmp_path / "reports" / "bench-recommend.md").read_text()


def test_graded_ndcg_of_known_rankings():
    from papersift.bench.recommend import graded_ndcg

    assert graded_ndcg([3, 2, 0], [0, 2, 3], 5) == 1.0
    assert graded_ndcg([0, 0], [0, 0], 5) == 0.0  # nothing relevant judged: 0, not a division by zero
    expected = (2 + 3 / math.log2(3)) / (3 + 2 / math.log2(3))
    assert math.isclose(graded_ndcg([2, 3, 0], [0, 2, 3], 5), expected)


def test_csfcube_users_rank_each_query_pool_without_the_query_paper(tmp_path):
    """A tiny CSFCube-shaped folder: the papers judged 3 sit next to their query paper in the
    vector space, so nearest neighbours rank them first (nDCG@5 1); every method gets a row."""
    import numpy as np
    import orjson

    from papersift.bench.recommend import run_csfcube_users
    from papersift.library.features import Features, tfidf_matrix

    rng = np.random.default_rng(3)
    ids = [str(number) for number in range(40)]
    vectors = rng.normal(size=(40, 16)).astype(np.float32)
    vectors[1:4] = vectors[0] + 0.05 * rng.normal(size=(3, 16))  # 1-3 are like query paper 0
    vectors[21:24] = vectors[20] + 0.05 * rng.normal(size=(3, 16))  # 21-23 like query paper 20
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"topic{number % 5} word{number} shared" for number in range(40)]
    features = Features(ids, {pid: row for row, pid in enumerate(ids)}, tfidf_matrix(texts)[0], vectors,
                        np.ones(40, dtype=bool), "test")
    queries = [{"_id": "0_method", "query_pid": "0"}, {"_id": "20_result", "query_pid": "20"}]
    (tmp_path / "queries_dev.jsonl").write_text("\n".join(orjson.dumps(query).decode() for query in queries) + "\n")
    pools = {"0_method": ids[:20], "20_result": ids[20:]}  # each pool holds its query paper: left out
    (tmp_path / "pools_dev.json").write_bytes(orjson.dumps(pools))
    qrels = ["query-id\tcorpus-id\tscore"] + [f"{query}\t{pid}\t{3 if pid in near else 0}"
                                              for query, near in (("0_method", ("1", "2", "3")), ("20_result", ("21", "22", "23")))
                                              for pid in pools[query] if pid not in ("0", "20")]
    (tmp_path / "qrels_dev.tsv").write_text("\n".join(qrels) + "\n")
    rows = run_csfcube_users(features, tmp_path)
    assert [row["method"] for row in rows] == ["papersift", "tfidf_svm", "knn"]
    knn = rows[2]
    assert knn["users"] == "csfcube" and knn["queries"] == 2 and knn["ndcg@5"] == 1.0 and knn["precision@5"] == 0.6
    assert all(0 <= row["ndcg@20"] <= 1 for row in rows)


def test_paired_differences_count_users_and_resample_whole_clusters():
    from papersift.bench.recommend import paired_differences

    scores = {"papersift": [(1.0, 1.0), (0.0, 0.5), (1.0, 1.0)], "knn": [(0.0, 0.0), (0.0, 0.5), (0.0, 1.0)]}
    [row] = paired_differences("topic", 5, scores, ["a", "a", "b"], ("precision@20", "ndcg@20"))
    assert (row["versus"], row["clusters"], row["simulated_users"]) == ("knn", 2, 3)
    precision = row["precision@20"]
    assert precision["difference"] == round(2 / 3, 4)
    assert (precision["won"], precision["tied"], precision["lost"]) == (2, 1, 0)
    # Cluster a's users differ by 1 and 0, cluster b's by 1: any resample of whole clusters
    # has a mean between 0.5 (a twice) and 1 (b twice), and both ends occur in 2,000 draws.
    assert precision["ci95"] == [0.5, 1.0]
    ndcg = row["ndcg@20"]
    assert (ndcg["difference"], ndcg["won"], ndcg["tied"]) == (round(1 / 3, 4), 1, 2)
    assert paired_differences("topic", 5, {"knn": scores["knn"]}, ["a", "a", "b"], ("precision@20", "ndcg@20")) == []
