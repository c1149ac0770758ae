"""papersift library ...: the commands a user types, their --json, one-line errors, and an
export imported into a fresh data dir with everything matched."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.library.entries import Library
from write_checks import write_jsonl

runner = CliRunner()


@pytest.fixture()
def data_dirs(tmp_path, sample_records):
    source = write_jsonl(tmp_path / "papers.jsonl", sample_records[:80])
    dirs = []
    for name in ("first", "fresh"):
        data_dir = tmp_path / name
        assert runner.invoke(app, ["ingest", str(source), "--data-dir", str(data_dir)]).exit_code == 0
        dirs.append(data_dir)
    return dirs


def _invoke(*args):
    return runner.invoke(app, ["library", *map(str, args)])


def test_a_session_of_commands_then_export_and_import(data_dirs, sample_records, tmp_path):
    first, fresh = data_dirs
    ids = [record["id"] for record in sample_records[:5]]
    result = _invoke("tag", "diffusion", *ids[:3], "--data-dir", first, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == {"ok": True, "tagged": 3}
    assert _invoke("dislike", ids[3], "--data-dir", first).exit_code == 0
    assert _invoke("like", ids[0], "--data-dir", first).exit_code == 0
    assert _invoke("note", ids[0], "Key idea: score matching.", "--data-dir", first).exit_code == 0
    assert _invoke("state", "to-read", *ids[1:3], "--data-dir", first).exit_code == 0
    listed = json.loads(_invoke("list", "--data-dir", first, "--json").stdout)
    assert listed["tags"] == {"diffusion": 3} and len(listed["entries"]) == 4
    shown = _invoke("list", "--tag", "diffusion", "--data-dir", first)
    assert shown.exit_code == 0 and f"+ {ids[0]}" in shown.stdout and "note: Key idea" in shown.stdout

    exported = tmp_path / "library.bib"
    assert _invoke("export", "--format", "bibtex", "-o", exported, "--data-dir", first).exit_code == 0
    result = _invoke("import", exported, "--data-dir", fresh, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["entries"] == summary["matched"] == 4 and summary["unmatched"] == 0
    imported = Library.open(fresh)
    assert sorted(imported.tagged("diffusion")) == sorted(ids[:3]) and imported.rated(-1) == [ids[3]]
    assert imported.entry(ids[0]).note == "Key idea: score matching." and imported.entry(ids[1]).reading == "to-read"


def test_an_import_names_each_entry_it_could_not_match(data_dirs, tmp_path):
    first, _ = data_dirs
    bib = tmp_path / "zotero.bib"
    bib.write_text("@misc{lost, title={A Paper Not Here}, year={2019}}\n")
    result = _invoke("import", bib, "--data-dir", first)
    assert result.exit_code == 0
    assert "1 entries (bibtex): 0 matched and merged, 1 not matched" in result.stdout
    assert f"{bib}: entry lost (line 1): no stored paper has its identifiers or the title 'A Paper Not Here' (2019)" \
        in " ".join(result.stderr.split())


@pytest.mark.parametrize(("args", "message"), [
    (["tag", "x", "NOPE-1"], "paper 'NOPE-1': no such paper"),
    (["state", "later", "{id}"], "reading state must be one of"),
    (["export", "--format", "docx"], "--format must be one of"),
    (["import", "/nonexistent.bib"], "no such file"),
])
def test_errors_are_one_line(data_dirs, sample_records, args, message):
    first, _ = data_dirs
    args = [arg.replace("{id}", sample_records[0]["id"]) for arg in args]
    result = _invoke(*args, "--data-dir", first)
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.output


def test_features_then_recommend(data_dirs, sample_records):
    first, _ = data_dirs
    ids = [record["id"] for record in sample_records[:6]]
    _invoke("tag", "mine", *ids, "--data-dir", first)
    missing = runner.invoke(app, ["recommend", "--tag", "mine", "--data-dir", str(first)])
    assert missing.exit_code == 1 and "papersift library features" in missing.stderr
    built = _invoke("features", "--data-dir", first, "--json")
    assert built.exit_code == 0 and json.loads(built.stdout)["papers"] == 80
    result = runner.invoke(app, ["recommend", "--tag", "mine", "-k", "3", "--data-dir", str(first), "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)["hits"]
    assert len(hits) == 3 and not {hit["paper_id"] for hit in hits} & set(ids)
    assert all(hit["because"] and hit["because"][0]["paper_id"] in ids for hit in hits)
    shown = runner.invoke(app, ["recommend", "--tag", "mine", "-k", "2", "--data-dir", str(first)])
    assert "like the 3 papers in tag 'mine': " in " ".join(shown.stdout.split())


def test_recommend_takes_the_search_filters_and_search_takes_tag(data_dirs, sample_records):
    first, _ = data_dirs
    by_id = {record["id"]: record for record in sample_records[:80]}
    ids = [record["id"] for record in sample_records[:6]]
    _invoke("tag", "mine", *ids, "--data-dir", first)
    _invoke("features", "--data-dir", first)
    assert runner.invoke(app, ["index", "--data-dir", str(first)]).exit_code == 0  # the filters use the keyword index
    venue = max({record["venue"] for record in by_id.values()}, key=lambda v: sum(r["venue"] == v for r in by_id.values()))
    result = runner.invoke(app, ["recommend", "--tag", "mine", "--venue", venue, "--year", "2000..2030",
                                 "--data-dir", str(first), "--json"])
    assert result.exit_code == 0, result.output
    hits = [hit["paper_id"] for hit in json.loads(result.stdout)["hits"]]
    assert hits and all(by_id[pid]["venue"] == venue and 2000 <= by_id[pid]["year"] <= 2030 for pid in hits)
    assert runner.invoke(app, ["recommend", "--tag", "mine", "--year", "20x", "--data-dir", str(first)]).exit_code == 1
    found = runner.invoke(app, ["search", "tag:mine", "--mode", "keyword", "--size", "50", "--data-dir", str(first),
                                "--json"])
    assert found.exit_code == 0, found.output
    assert {hit["paper"]["id"] for hit in json.loads(found.stdout)["hits"]} == set(ids)
    unknown = runner.invoke(app, ["search", "tag:nope", "--mode", "keyword", "--data-dir", str(first), "--json"])
    assert unknown.exit_code == 0 and json.loads(unknown.stdout)["hits"] == []
    assert "no paper tagged 'nope'" in unknown.stdout


def test_an_import_over_the_entry_bound_is_refused_before_it_is_parsed(data_dirs, tmp_path, monkeypatch):
    from papersift.library import interchange

    first, _ = data_dirs
    monkeypatch.setattr(interchange, "MAX_IMPORT_ENTRIES", 1_000)
    monkeypatch.setattr(interchange, "read_entries", lambda *_: pytest.fail("parsed a refused import"))
    big = tmp_path / "big.bib"
    big.write_bytes(b"".join(b"@misc{k%d, title={T %d}}\n" % (number, number) for number in range(1_001)))
    result = runner.invoke(app, ["library", "import", str(big), "--data-dir", str(first)])
    assert result.exit_code == 1 and result.exception is not None and isinstance(result.exception, SystemExit)
    assert result.stderr.strip().splitlines() == [f"error: {big}: the file has over 1,000 entries, the most one import takes"]
