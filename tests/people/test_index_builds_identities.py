"""`papersift index` keeps author identities and venue summaries in step with the store."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from papersift.cli import app

runner = CliRunner()


def _write(path, papers):
    path.write_bytes(b"".join(orjson.dumps(paper | {"venue": "UAI", "year": 2021}) + b"\n" for paper in papers))
    return path


def test_index_builds_identities_after_each_change(tmp_path):
    data = ["--data-dir", str(tmp_path / "data")]
    first = _write(tmp_path / "a.jsonl", [
        {"id": "A1", "title": "Causal discovery at scale", "authors": ["Zico Kolter", "Eric Wong"]},
        {"id": "A2", "title": "Robust causal discovery", "authors": ["J. Zico Kolter", "Eric Wong"]}])
    assert runner.invoke(app, ["ingest", str(first), *data]).exit_code == 0
    indexed = runner.invoke(app, ["index", "--json", *data])
    assert indexed.exit_code == 0, indexed.output
    assert orjson.loads(indexed.stdout)["authors"]["mentions"] == 4
    profile = orjson.loads(runner.invoke(app, ["author", "J. Zico Kolter", "--json", *data]).stdout)
    assert profile["id"] == "j-zico-kolter" and profile["paper_count"] == 2  # one each: the fullest spelling names it
    again = runner.invoke(app, ["index", "--json", *data])
    assert orjson.loads(again.stdout)["authors"] is None  # nothing changed: identities kept
    second = _write(tmp_path / "b.jsonl", [{"id": "A3", "title": "Causal bandits", "authors": ["Zico Kolter", "Ann Lee"]}])
    assert runner.invoke(app, ["ingest", str(second), *data]).exit_code == 0
    assert orjson.loads(runner.invoke(app, ["index", "--json", *data]).stdout)["authors"]["mentions"] == 6
    venue = orjson.loads(runner.invoke(app, ["venue", "UAI", "--json", *data]).stdout)
    assert venue["papers"] == 3 and (venue["top_authors"][0]["id"], venue["top_authors"][0]["papers"]) == ("zico-kolter", 3)
