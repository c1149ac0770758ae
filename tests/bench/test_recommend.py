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
