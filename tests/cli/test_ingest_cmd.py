"""papersift ingest / stats / show from the command line; kill -9 mid-run and run again."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.store import DB_FILE
from write_checks import kill_when_paused

PAPERSIFT = str(Path(sys.executable).parent / "papersift")
MAIN_FILE_PAPERS = 33_925


def run_cli(*args: str):
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture()
def bad_jsonl(sample_records, tmp_path) -> Path:
    path = tmp_path / "bad.jsonl"
    lines = [orjson.dumps(record) for record in sample_records[:5]]
    lines.insert(2, b'{"id": "broken", "title": ')
    lines.insert(4, orjson.dumps({"id": "no-title", "year": 2020}))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_good_file_exits_0_with_a_summary(sample_jsonl, sample_records, tmp_path):
    result = run_cli("ingest", sample_jsonl, "--data-dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert f"{len(sample_records)} records: {len(sample_records)} added, 0 updated" in result.stdout


def test_rejected_records_are_named_on_stderr_and_exit_1(bad_jsonl, tmp_path):
    result = run_cli("ingest", bad_jsonl, "--data-dir", tmp_path)
    assert result.exit_code == 1
    assert f"{bad_jsonl}:line 3: broken JSON" in result.stderr
    assert f"{bad_jsonl}:line 5 (id no-title): missing required field 'title'" in result.stderr
    assert "5 added" in result.stdout and "2 rejected" in result.stdout


def test_json_summary_for_scripts(bad_jsonl, tmp_path):
    result = run_cli("ingest", bad_jsonl, "--data-dir", tmp_path, "--json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert (summary["added"], summary["rejected"], summary["files"]) == (5, 2, 1)
    assert summary["errors"][0].endswith("line 3: broken JSON: unexpected end of data: line 1 column 27 (char 26)")


def test_strict_stops_at_the_first_rejected_record(bad_jsonl, tmp_path):
    result = run_cli("ingest", bad_jsonl, "--data-dir", tmp_path, "--strict")
    assert result.exit_code == 1
    assert "rejected (--strict)" in result.stderr and "line 3: broken JSON" in result.stderr
    stats = json.loads(run_cli("stats", "--data-dir", tmp_path, "--json").stdout)
    assert stats["papers"] == 2  # the lines before the bad one


def test_missing_file_and_unknown_format_fail(tmp_path):
    result = run_cli("ingest", tmp_path / "nope.jsonl", "--data-dir", tmp_path)
    assert result.exit_code == 1 and "no such file" in result.stderr
    odd = tmp_path / "odd.txt"
    odd.write_text("hello\n")
    result = run_cli("ingest", odd, "--data-dir", tmp_path)
    assert result.exit_code == 1 and "cannot tell the format of odd.txt" in result.stderr


def test_stats_and_show(sample_data_dir, sample_records):
    stats = json.loads(run_cli("stats", "--data-dir", sample_data_dir, "--json").stdout)
    assert stats["papers"] == len(sample_records)
    paper = sample_records[7]
    shown = run_cli("show", paper["id"], "--data-dir", sample_data_dir, "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["title"] == " ".join(paper["title"].split())
    missing = run_cli("show", "NO-SUCH-ID", "--data-dir", sample_data_dir)
    assert missing.exit_code == 1 and "no paper with id 'NO-SUCH-ID'" in missing.stderr


# -- the full corpus: SIGKILL mid-run, run again ------------------------------------------

def _paper_count(database: Path) -> int:
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


@pytest.fixture(scope="module")
def killed_and_rerun(shared_data, tmp_path_factory) -> dict:
    """Ingest the main corpus, SIGKILL it right after its second batch committed (a pause
    point, not timing), run it again; what each step saw."""
    data_dir = tmp_path_factory.mktemp("killed")
    corpus = shared_data / "ml_papers" / "papers.jsonl.gz"
    command = [PAPERSIFT, "ingest", str(corpus), "--data-dir", str(data_dir), "--json"]
    kill_when_paused(command, "ingest-batch-committed:2")  # asserts it died of the SIGKILL
    at_kill = _paper_count(data_dir / DB_FILE)
    rerun = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    return {"data_dir": data_dir, "at_kill": at_kill,
            "rerun_code": rerun.returncode, "rerun": json.loads(rerun.stdout) if rerun.stdout else {},
            "rerun_stderr": rerun.stderr}


@pytest.mark.drill
def test_kill_mid_ingest_then_rerun_leaves_every_record_once(killed_and_rerun, shared_data):
    run = killed_and_rerun
    assert run["at_kill"] == 4000, "killed after two committed batches"
    assert run["rerun_code"] == 0, run["rerun_stderr"]
    # What landed before the kill is unchanged; the rest is added; nothing is doubled.
    assert run["rerun"]["unchanged"] >= run["at_kill"]
    assert run["rerun"]["added"] + run["rerun"]["unchanged"] == MAIN_FILE_PAPERS
    assert run["rerun"]["updated"] == run["rerun"]["merged"] == 0
    with sqlite3.connect(run["data_dir"] / DB_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        total, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM papers").fetchone()
        stored_ids = {row[0] for row in conn.execute("SELECT id FROM papers")}
    import gzip
    with gzip.open(shared_data / "ml_papers" / "papers.jsonl.gz", "rb") as handle:
        file_ids = {orjson.loads(line)["id"] for line in handle}
    assert total == distinct == MAIN_FILE_PAPERS
    assert stored_ids == file_ids


@pytest.mark.drill
def test_main_file_counts_by_venue_match_the_manifest(killed_and_rerun, shared_data):
    manifest = json.loads((shared_data / "ml_papers" / "manifest.json").read_text())
    stats = json.loads(run_cli("stats", "--data-dir", killed_and_rerun["data_dir"], "--json").stdout)
    assert stats["papers"] == manifest["counts"]["papers_total"] == MAIN_FILE_PAPERS
    assert stats["by_venue_year"] == manifest["counts"]["papers"]
    by_venue: dict[str, int] = {}
    for venue_year, count in manifest["counts"]["papers"].items():
        venue = venue_year.rsplit(" ", 1)[0]
        by_venue[venue] = by_venue.get(venue, 0) + count
    assert stats["by_venue"] == by_venue
