"""Shared checks for the write-path tests: synthetic papers, and "every paper stored once,
seqs unique, every paper in the live keyword index exactly once"."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path

import orjson
import tantivy

from papersift.index import lexical
from papersift.record import Paper, paper_from_dict
from papersift.store import DB_FILE

PAUSE_ENV = "PAPERSIFT_PAUSE_AT"  # papersift.pausepoints.PAUSE_ENV, spelled out: the contract tests rely on


def synthetic_records(prefix: str, count: int) -> list[dict]:
    """Distinct papers (distinct titles: none merges into another by title)."""
    return [{
        "id": f"{prefix}-{number}", "title": f"Paper {number} of writer {prefix}", "venue": "COLM", "year": 2025,
        "authors": [f"Author {prefix}"],
        "abstract": f"Writer {prefix} wrote paper number {number} to test concurrent writers of the store.",
    } for number in range(count)]


def synthetic_papers(prefix: str, count: int) -> list[Paper]:
    return [paper_from_dict(record) for record in synthetic_records(prefix, count)]


def write_jsonl(path: Path, records: Iterable[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def ingested_dir(tmp_path: Path, records: Iterable[dict]) -> Path:
    """tmp_path/data holding `records`, ingested by the CLI command as a user would."""
    from typer.testing import CliRunner

    from papersift.cli import app

    source = write_jsonl(tmp_path / "papers.jsonl", records)
    directory = tmp_path / "data"
    result = CliRunner().invoke(app, ["ingest", str(source), "--data-dir", str(directory)])
    assert result.exit_code == 0, result.output
    return directory


def stored_rows(data_dir: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT id, seq FROM papers").fetchall()


def index_counts(data_dir: Path, paper_ids: Iterable[str]) -> tuple[int, dict[str, int]]:
    """(documents in the live keyword index, live documents per paper id)."""
    index = lexical.open_index(data_dir).index
    searcher = index.searcher()
    schema = index.schema
    counts = {paper_id: searcher.search(tantivy.Query.term_query(schema, "id", paper_id), 1).count
              for paper_id in paper_ids}
    return searcher.num_docs, counts


def assert_stored_and_indexed_once(data_dir: Path, expected_ids: set[str]) -> None:
    rows = stored_rows(data_dir)
    ids = [paper_id for paper_id, _ in rows]
    seqs = [seq for _, seq in rows]
    assert sorted(ids) == sorted(expected_ids), "every paper stored exactly once"
    assert len(set(seqs)) == len(seqs), "seqs are unique"
    documents, per_id = index_counts(data_dir, expected_ids)
    unsearchable = sorted(paper_id for paper_id, count in per_id.items() if count != 1)
    assert not unsearchable, f"{len(unsearchable)} papers not in the index exactly once, e.g. {unsearchable[:5]}"
    assert documents == len(expected_ids)


class FirstWriteHeld:
    """Holds the first write transaction opened after `install` just before its BEGIN
    IMMEDIATE runs, until `go` is set: a deterministic interleaving of two writers.

    Installed as a trace callback on every new SQLite connection (sqlite3.connect is patched
    for the test), so it works whichever thread the write runs in (an API worker, say).
    """

    def __init__(self) -> None:
        self.reached, self.go = threading.Event(), threading.Event()
        self.timed_out = False
        self._taken = False
        self._lock = threading.Lock()

    def install(self, monkeypatch) -> FirstWriteHeld:
        real_connect = sqlite3.connect

        def connect(*args, **kwargs):
            conn = real_connect(*args, **kwargs)
            conn.set_trace_callback(self._on_statement)
            return conn

        monkeypatch.setattr(sqlite3, "connect", connect)
        return self

    def _on_statement(self, statement: str) -> None:
        if not statement.lstrip().upper().startswith("BEGIN IMMEDIATE"):
            return
        with self._lock:
            if self._taken:
                return
            self._taken = True
        self.reached.set()
        if not self.go.wait(60):  # a guard against a hang: a test that relied on it proved nothing
            self.timed_out = True


def kill_when_paused(command: list[str], point: str, timeout: float = 300) -> str:
    """Run `command` with PAPERSIFT_PAUSE_AT=point, SIGKILL it once it says it paused there;
    returns its stderr up to then. Fails (does not hang) if it ends without pausing."""
    environment = {**os.environ, PAUSE_ENV: point}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
    killer = threading.Timer(timeout, process.kill)  # a guard only: the pause line is the sync
    killer.start()
    seen = []
    try:
        for line in process.stderr:
            seen.append(line)
            if line.startswith(f"paused at {point}"):
                break
        paused = bool(seen) and seen[-1].startswith(f"paused at {point}")
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        killer.cancel()
        process.stderr.close()
    assert paused, f"never paused at {point}: {''.join(seen)[-2000:]}"
    assert process.returncode == -signal.SIGKILL
    return "".join(seen)
