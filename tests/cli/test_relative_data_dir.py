"""Every command with a relative --data-dir (and $PAPERSIFT_DATA_DIR), as a user types it in
the folder they work in; a data dir that is a file is one line (issue 29, items 4 and 5)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.index import termlexicon
from write_checks import write_jsonl

runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result


@pytest.mark.parametrize("how", ["option", "environment"])
def test_commands_work_with_a_relative_data_dir(sample_records, tmp_path, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "papers.jsonl", sample_records[:150])
    if how == "environment":
        monkeypatch.setenv("PAPERSIFT_DATA_DIR", "data")
        where: tuple[str, ...] = ()
    else:
        where = ("--data-dir", "data")
    run("ingest", "papers.jsonl", *where)
    indexed = orjson.loads(run("index", *where, "--json").stdout)
    # `index` crashed here, after the keyword index, when it checked the term lexicon by file URI
    assert indexed["documents"] == 150 and indexed["term_lexicon"] is not None
    assert termlexicon.lexicon_path(tmp_path / "data").exists()
    assert orjson.loads(run("index", *where, "--json").stdout)["term_lexicon"] is None
    title = sample_records[0]["title"]
    found = orjson.loads(run("search", f'title:"{title}"', "--mode", "keyword", "--json", *where).stdout)
    assert sample_records[0]["id"] in [hit["paper"]["id"] for hit in found["hits"]]
    run("stats", *where)
    run("library", "tag", "reading", sample_records[0]["id"], *where)
    run("library", "export", "--format", "bibtex", "-o", "library.bib", *where)
    assert Path("library.bib").read_text().count("@") == 1
    run("saved", "add", "mine", "learning", *where)
    run("digest", *where)


@pytest.mark.parametrize("command", [["search", "transformer"], ["index"], ["stats"], ["library", "list"],
                                     ["serve"], ["digest"]])
def test_a_data_dir_that_is_a_file_is_one_line(tmp_path, command):
    a_file = tmp_path / "papers.jsonl"
    a_file.write_text("{}\n")
    result = runner.invoke(app, [*command, "--data-dir", str(a_file)])
    assert result.exit_code == 1 and result.exception is not None and isinstance(result.exception, SystemExit)
    assert result.output.strip().splitlines() == [
        f"error: the data dir {a_file} is not a directory (--data-dir names the folder papersift keeps its store in)"]
