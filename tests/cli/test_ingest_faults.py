"""Faults outside papersift give one line on stderr and a non-zero exit, never a traceback:
a full disk (a real one: a small tmpfs), a data dir that is a file, a device as input."""

from __future__ import annotations

import gzip
import itertools
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.store import DB_FILE, Store
from tiny_disk import resize, tiny_disk_fixture  # noqa: F401 - the tiny_disk fixture
from write_checks import synthetic_records, write_jsonl

PAPERSIFT = str(Path(sys.executable).parent / "papersift")
RECORDS = 10_000  # five batches of 2,000


@pytest.fixture(scope="module")
def ten_thousand(shared_data, tmp_path_factory) -> tuple[Path, list[str]]:
    """The corpus's first 10,000 lines as a plain JSONL file; (path, ids in file order)."""
    path = tmp_path_factory.mktemp("input") / "first10k.jsonl"
    with gzip.open(shared_data / "ml_papers" / "papers.jsonl.gz", "rb") as source:
        lines = list(itertools.islice(source, RECORDS))
    path.write_bytes(b"".join(lines))
    return path, [json.loads(line)["id"] for line in lines]


def _one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr and len(lines) == 1, stderr
    return lines[0]


def test_a_full_disk_stops_ingest_in_one_line_keeps_whole_batches_and_recovers(tiny_disk, ten_thousand):
    resize(tiny_disk, "10m")  # room for the first batch (and its run status), not for all five
    path, ids = ten_thousand
    data_dir = tiny_disk / "data"
    command = [PAPERSIFT, "ingest", str(path), "--data-dir", str(data_dir), "--json"]
    full = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert full.returncode == 1
    assert _one_line_error(full.stderr) == (f"error: disk full: cannot store papers in {data_dir}; nothing of this "
                                            "write was kept. Free space and run the same ingest again: the batches "
                                            "committed before it are kept")
    with sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = [row[0] for row in conn.execute("SELECT id FROM papers ORDER BY seq")]
    assert 0 < len(stored) < RECORDS and len(stored) % 2000 == 0  # whole batches, nothing half-written
    assert stored == ids[:len(stored)]  # exactly the papers of the committed batches

    resize(tiny_disk, "64m")
    again = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert (summary["added"], summary["unchanged"]) == (RECORDS - len(stored), len(stored))
    store = Store(data_dir, readonly=True)
    assert sorted(paper.id for _, paper in store.iter_papers()) == sorted(ids)
    assert [run["status"] for run in store.runs()] == ["failed", "ok"]


def test_a_data_dir_that_is_a_file_is_one_line(ten_thousand, tmp_path):
    not_a_dir = tmp_path / "data"
    not_a_dir.write_text("a file")
    result = CliRunner().invoke(app, ["ingest", str(ten_thousand[0]), "--data-dir", str(not_a_dir)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert _one_line_error(result.stderr) == (f"error: the data dir {not_a_dir} is not a directory "
                                              "(--data-dir names the folder papersift keeps its store in)")


def test_ingest_of_a_device_is_one_line(tmp_path):
    result = subprocess.run([PAPERSIFT, "ingest", "/dev/zero", "--format", "jsonl", "--data-dir", str(tmp_path)],
                            check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "rejected /dev/zero:file: not a regular file (a device, pipe or socket)" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_read_only_disk_is_one_line(tiny_disk, tmp_path):
    data_dir = tiny_disk / "data"
    path = write_jsonl(tmp_path / "three.jsonl", synthetic_records("ro", 3))
    command = [PAPERSIFT, "ingest", str(path), "--data-dir", str(data_dir)]
    assert subprocess.run(command, check=False, capture_output=True, timeout=120).returncode == 0
    resize(tiny_disk, "32m,ro")
    refused = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert _one_line_error(refused.stderr) == (
        f"error: cannot write {data_dir}: read-only file system. A read-only data dir can be searched and served; "
        "ingest, index and embed need one they can write")
    assert Store(data_dir, readonly=True).count() == 3  # and it still reads
