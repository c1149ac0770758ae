"""A data dir on a read-only mount (a served snapshot): search and serve work, every write
command stops with one line on stderr. Twice: with the database's -wal/-shm files (copied
while a writer had it open, its last write still in the -wal) and without them (a clean copy,
where SQLite's mode=ro cannot create them)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import papersift
from papersift.cli import app
from papersift.index import lexical
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, get_spec
from papersift.record import Paper
from papersift.server import create_app
from papersift.store import DB_FILE, Store
from papersift.topics.projection import map_points
from read_only_mount import read_only_view
from served_papers import TEST_HOSTS, build_served_data_dir

pytestmark = pytest.mark.drill  # bind mounts (root), a CLI run per write command

runner = CliRunner()
SOURCE_ROOT = str(Path(papersift.__file__).resolve().parents[1])
LAST_WRITE = Paper(id="TEST-2025-last-write", title="Zyzzogeton beetles in the write-ahead log", venue="ICLR",
                   year=2025, abstract="A paper whose only copy is in the -wal file of the snapshot.")


@pytest.fixture(scope="module", params=["with-wal-files", "without-wal-files"])
def read_only_dir(request, sample_records, tmp_path_factory):
    source = build_served_data_dir(tmp_path_factory.mktemp("ro_source") / "data", sample_records[:300])
    store = Store(source)
    store.upsert([LAST_WRITE])
    lexical.update(source)
    papers = list(store.iter_papers(0))
    matrix = np.random.default_rng(3).standard_normal((len(papers), get_spec(DEFAULT_MODEL).dim)).astype(np.float32)
    write_index(source, DEFAULT_MODEL, [paper.id for _, paper in papers], matrix / np.linalg.norm(matrix, axis=1,
                keepdims=True), papers_total=len(papers), last_seq=papers[-1][0])
    map_points(source, "pca")  # what `papersift topics map` stores: serving only reads it
    snapshot = tmp_path_factory.mktemp("ro_snapshot") / "data"
    shutil.copytree(source, snapshot)  # the store's writer is still open: -wal holds LAST_WRITE
    store.close()
    if request.param == "without-wal-files":
        conn = sqlite3.connect(snapshot / DB_FILE)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()  # the last connection: SQLite folds the -wal in and removes both files
        assert not (snapshot / f"{DB_FILE}-wal").exists() and not (snapshot / f"{DB_FILE}-shm").exists()
    else:
        assert (snapshot / f"{DB_FILE}-wal").stat().st_size > 0 and (snapshot / f"{DB_FILE}-shm").exists()
    with read_only_view(snapshot, tmp_path_factory.mktemp("ro_mount") / "data") as view:
        yield view


def test_search_from_the_command_line(read_only_dir):
    bodies = {}
    for mode in ("keyword", "hybrid", "semantic"):  # the vectors are random: semantic ranks say nothing
        result = runner.invoke(app, ["search", "zyzzogeton beetles", "--mode", mode, "--json",
                                     "--data-dir", str(read_only_dir)])
        assert result.exit_code == 0, result.output
        bodies[mode] = body = orjson.loads(result.stdout)
        assert not any("semantic index" in notice for notice in body["notices"]), mode
    assert bodies["keyword"]["hits"] and bodies["hybrid"]["hits"]
    # the random vectors sit below e5's relevance floor: semantic mode reads its index and finds
    # nothing close enough (docs/semantic.md, "The relevance floor")
    assert bodies["semantic"]["hits"] == [] and bodies["semantic"]["total"] == 0
    assert [hit["paper"]["id"] for hit in bodies["keyword"]["hits"]] == [LAST_WRITE.id]
    result = runner.invoke(app, ["show", LAST_WRITE.id, "--data-dir", str(read_only_dir)])
    assert result.exit_code == 0 and LAST_WRITE.title in result.stdout


def test_serve_from_the_api(read_only_dir):
    with TestClient(create_app(read_only_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        body = client.get("/api/search", params={"q": "learning", "mode": "keyword"}).json()
        assert body["total"] > 0 and body["facets"]["venue"]
        hybrid = client.get("/api/search", params={"q": "zyzzogeton beetles"}).json()
        assert hybrid["mode"] == "hybrid" and hybrid["hits"] and hybrid["notices"] == []
        assert client.get(f"/api/papers/{LAST_WRITE.id}").status_code == 200
        assert client.get(f"/api/papers/{LAST_WRITE.id}/similar").status_code == 200
        assert client.get("/", params={"q": "learning"}).status_code == 200
        topic_map = client.get("/api/topics/map")  # the stored projection, read from the snapshot
        assert topic_map.status_code == 200 and topic_map.json()["count"] > 0


@pytest.mark.parametrize("command", [["index"], ["index", "--rebuild"], ["ingest", "{records}"], ["embed"]])
def test_every_write_command_stops_with_one_line(read_only_dir, tmp_path, command):
    records = tmp_path / "more.jsonl"
    records.write_bytes(orjson.dumps({"id": "TEST-2025-new", "title": "A new paper", "venue": "ICLR", "year": 2025}))
    argv = [part.replace("{records}", str(records)) for part in command] + ["--data-dir", str(read_only_dir)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])),
               COLUMNS="300")
    done = subprocess.run([sys.executable, "-c", "from papersift.cli import main; main()", *argv], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: cannot write"), done.stderr
    assert "can be searched and served" in lines[0]
