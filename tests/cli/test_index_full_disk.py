"""`papersift index` on a full disk (a real one: a small tmpfs): one line on stderr, the live
index untouched, and the next run after space returns completes it."""

from __future__ import annotations

import os
import subprocess
import sys

from papersift.index import lexical
from papersift.store import Store
from tiny_disk import fill_disk, tiny_disk_fixture  # noqa: F401 - the tiny_disk fixture
from write_checks import synthetic_records, write_jsonl

COMMAND = [sys.executable, "-m", "papersift"]


def papersift(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=300, check=False)


def live_documents(data_dir) -> int:
    return lexical.open_index(data_dir).index.searcher().num_docs


def test_index_on_a_full_disk_is_one_line_and_recovers(tiny_disk, tmp_path):
    data_dir = tiny_disk / "data"
    first = write_jsonl(tmp_path / "first.jsonl", synthetic_records("first", 1500))
    more = write_jsonl(tmp_path / "more.jsonl", synthetic_records("more", 1500))
    assert papersift("ingest", str(first), "--data-dir", str(data_dir)).returncode == 0
    assert papersift("index", "--data-dir", str(data_dir)).returncode == 0
    assert papersift("ingest", str(more), "--data-dir", str(data_dir)).returncode == 0
    filler = fill_disk(tiny_disk)

    refused = papersift("index", "--data-dir", str(data_dir))
    lines = [line for line in refused.stderr.splitlines() if line.strip() and not line.startswith("index ")]
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert len(lines) == 1 and lines[0].startswith("error:") and "space" in lines[0].lower(), refused.stderr
    assert live_documents(data_dir) == 1500  # the last published generation, whole

    filler.unlink()
    assert papersift("index", "--data-dir", str(data_dir)).returncode == 0
    assert live_documents(data_dir) == Store(data_dir, readonly=True).count() == 3000
    assert not list((data_dir / "lexical").glob(".*building*"))
    found = papersift("search", 'title:"paper 1499 of writer more"', "--mode", "keyword", "--data-dir", str(data_dir),
                      "--json")
    assert found.returncode == 0 and '"more-1499"' in found.stdout, found.stderr


def test_a_first_index_on_a_nearly_full_disk_is_one_line_wherever_space_runs_out(tiny_disk, tmp_path):
    """The disk runs out at different steps of a first build depending on the space left: inside
    tantivy's own writes too (its commit raised `ValueError: An IO error occurred: 'No space left
    on device (os error 28)'` as a traceback), in the row store, in the term lexicon."""
    data_dir = tiny_disk / "data"
    source = write_jsonl(tmp_path / "papers.jsonl", synthetic_records("first", 3000))
    assert papersift("ingest", str(source), "--data-dir", str(data_dir)).returncode == 0
    filler = fill_disk(tiny_disk)
    full_size = filler.stat().st_size
    for free_kib in (100, 200, 300, 400, 600, 900):
        os.truncate(filler, full_size - free_kib * 1024)
        refused = papersift("index", "--data-dir", str(data_dir))
        lines = [line for line in refused.stderr.splitlines() if line.strip() and not line.startswith("index ")]
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, (free_kib, refused.stderr[-3000:])
        assert len(lines) == 1 and lines[0].startswith("error: disk full"), (free_kib, refused.stderr)
        # the keyword index is published before the term lexicon is built: when only the lexicon
        # ran out of space, the published index is whole
        assert lexical.current_generation(data_dir) is None or live_documents(data_dir) == 3000
        assert not list((data_dir / "lexical").glob(".*building*"))
    filler.unlink()
    assert papersift("index", "--data-dir", str(data_dir)).returncode == 0
    assert live_documents(data_dir) == 3000
