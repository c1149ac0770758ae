"""papersift eval from the command line: the JSON other tools read, and clear refusals."""

from __future__ import annotations

import gzip

import orjson
from typer.testing import CliRunner

from papersift.cli import app

runner = CliRunner()


def scifact_files(shared_data, folder, documents: int = 300):
    """A SciFact slice: the dev queries whose evidence is among the first `documents` relevant ones."""
    qrels_lines = (shared_data / "scifact" / "qrels_dev.tsv").read_text().splitlines()
    relevant = {line.split("\t")[1] for line in qrels_lines[1:]}
    with gzip.open(shared_data / "scifact" / "corpus.jsonl.gz", "rb") as handle:
        kept = [record for record in map(orjson.loads, handle) if record["_id"] in relevant][:documents]
    kept_ids = {record["_id"] for record in kept}
    judged = [line for line in qrels_lines[1:] if line.split("\t")[1] in kept_ids]
    corpus, qrels = folder / "corpus.jsonl", folder / "qrels.tsv"
    corpus.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in kept))
    qrels.write_text("\n".join([qrels_lines[0], *judged]) + "\n")
    return corpus, qrels


def test_eval_json_has_the_stable_shape(shared_data, tmp_path):
    corpus, qrels = scifact_files(shared_data, tmp_path)
    result = runner.invoke(app, ["eval", "--queries", str(shared_data / "scifact" / "queries_dev.jsonl"),
                                 "--qrels", str(qrels), "--corpus", str(corpus), "--cache-dir", str(tmp_path / "cache"),
                                 "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert set(report) == {"mode", "metrics", "queries"} and report["mode"] == "keyword"
    assert set(report["metrics"]["all"]) == {"mrr@10", "recall@10", "recall@100", "ndcg@10", "ndcg@20"}
    assert report["queries"] > 50 and report["metrics"]["all"]["ndcg@10"] > 0.5


def test_like_needs_a_vector_mode(shared_data, tmp_path):
    corpus, qrels = scifact_files(shared_data, tmp_path, documents=20)
    result = runner.invoke(app, ["eval", "--queries", str(shared_data / "scifact" / "queries_dev.jsonl"),
                                 "--qrels", str(qrels), "--corpus", str(corpus), "--like"])
    assert result.exit_code != 0
    assert "--like" in result.stderr and "semantic or hybrid" in result.stderr
    both = runner.invoke(app, ["eval", "--queries", str(shared_data / "scifact" / "queries_dev.jsonl"),
                               "--qrels", str(qrels), "--corpus", str(corpus), "--like", "--like-paper",
                               "--mode", "hybrid"])
    assert both.exit_code != 0 and "choose one" in both.stderr
