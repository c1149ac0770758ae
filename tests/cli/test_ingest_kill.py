"""SIGKILL at known moments of `papersift ingest` (pause points, not lucky timing): nothing
committed is lost, nothing is corrupted, the killed run reads 'interrupted', and running the
same ingest again completes the store and the incremental index."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.index import lexical
from papersift.ingest import pipeline
from papersift.store import DB_FILE, Store
from write_checks import assert_stored_and_indexed_once, kill_when_paused, stored_rows

pytestmark = pytest.mark.drill

PAPERSIFT = str(Path(sys.executable).parent / "papersift")
RECORDS = 10_000  # five batches of 2,000


@pytest.fixture(scope="module")
def ten_thousand(shared_data, tmp_path_factory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("input") / "first10k.jsonl.gz"
    with gzip.open(shared_data / "ml_papers" / "papers.jsonl.gz", "rb") as source:
        lines = list(itertools.islice(source, RECORDS))
    path.write_bytes(gzip.compress(b"".join(lines), compresslevel=1))
    return path, [json.loads(line)["id"] for line in lines]


def _statuses(data_dir: Path) -> list[str]:
    with sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True) as conn:
        return [row[0] for row in conn.execute("SELECT status FROM ingest_runs ORDER BY run_id")]


def test_kill_after_a_commit_and_inside_a_transaction_then_rerun(ten_thousand, tmp_path):
    path, ids = ten_thousand
    data_dir = tmp_path / "data"
    command = [PAPERSIFT, "ingest", str(path), "--data-dir", str(data_dir), "--json"]

    # 1. Killed right after its second batch committed: exactly those 4,000 papers are stored.
    kill_when_paused(command, "ingest-batch-committed:2")
    assert sorted(paper_id for paper_id, _ in stored_rows(data_dir)) == sorted(ids[:4000])
    assert _statuses(data_dir) == ["running"]  # nothing ran since: the row is as the process left it
    stats = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "--json"])
    assert json.loads(stats.stdout)["ingest_runs_by_status"] == {"interrupted": 1}  # but reads as what it is
    shown = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir)])
    assert "ingest run 1 was interrupted" in shown.stdout
    assert lexical.update(data_dir).added == 4000

    # 2. Killed inside its third batch's transaction (written, not committed): rolled back whole.
    kill_when_paused(command, "store-before-commit:3")
    assert sorted(paper_id for paper_id, _ in stored_rows(data_dir)) == sorted(ids[:4000])
    assert _statuses(data_dir) == ["interrupted", "running"]  # run 2 marked run 1 when it began

    # 3. The same command again completes the store; every run is accounted for.
    summary = json.loads(run_to_the_end(command))
    assert (summary["added"], summary["unchanged"], summary["rejected"]) == (6000, 4000, 0)
    assert _statuses(data_dir) == ["interrupted", "interrupted", "ok"]
    assert os.listdir(data_dir / "ingest-runs") == []  # no lock files left behind
    lexical.update(data_dir)
    assert_stored_and_indexed_once(data_dir, set(ids))


def run_to_the_end(command: list[str]) -> str:
    finished = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    return finished.stdout


def test_ctrl_c_marks_the_run_interrupted_and_says_so_in_one_line(ten_thousand, tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "_report", interrupted)  # after the first batch is committed
    result = CliRunner().invoke(app, ["ingest", str(ten_thousand[0]), "--data-dir", str(tmp_path), "--json"])
    assert result.exit_code == 130
    assert result.stderr.strip() == ("error: interrupted; the batches committed so far are kept, run the same "
                                     "ingest again to finish")
    store = Store(tmp_path, readonly=True)
    assert store.count() == 2000 and [run["status"] for run in store.runs()] == ["interrupted"]
