"""SIGKILL inside a follow write (the pause point `follow-before-commit`: rows written, COMMIT
not run): saved searches committed before stay, nothing of the killed write is kept, the file
is intact, and the same command run again completes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from papersift.follow.state import Following
from papersift.store import DB_FILE
from write_checks import kill_when_paused, write_jsonl

pytestmark = pytest.mark.drill

PAPERSIFT = str(Path(sys.executable).parent / "papersift")


def test_a_kill_mid_write_keeps_the_committed_and_drops_the_open_write(tmp_path, sample_records):
    data_dir = tmp_path / "data"
    source = write_jsonl(tmp_path / "papers.jsonl", sample_records[:50])
    subprocess.run([PAPERSIFT, "ingest", str(source), "--data-dir", str(data_dir)], check=True, capture_output=True)
    subprocess.run([PAPERSIFT, "saved", "add", "kept", "learning", "--data-dir", str(data_dir)], check=True,
                   capture_output=True)

    kill_when_paused([PAPERSIFT, "saved", "add", "killed", "graphs", "--venue", "ICLR", "--data-dir", str(data_dir)],
                     "follow-before-commit:1")
    kill_when_paused([PAPERSIFT, "saved", "rename", "kept", "renamed", "--data-dir", str(data_dir)],
                     "follow-before-commit:1")
    with sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM watch_marks").fetchone()[0] == 2  # only 'kept''s page + digest
    following = Following.open(data_dir)
    assert [saved.name for saved in following.saved_searches()] == ["kept"]

    subprocess.run([PAPERSIFT, "saved", "add", "killed", "graphs", "--venue", "ICLR", "--data-dir", str(data_dir)],
                   check=True, capture_output=True)
    subprocess.run([PAPERSIFT, "saved", "rename", "kept", "renamed", "--data-dir", str(data_dir)], check=True,
                   capture_output=True)
    assert [saved.name for saved in following.saved_searches()] == ["killed", "renamed"]


def test_a_digest_killed_mid_way_delivers_each_paper_once(tmp_path, sample_records):
    from papersift.follow.saved import SavedQuery
    from papersift.index import lexical
    from papersift.record import paper_from_dict
    from papersift.store import Store
    from served_papers import build_served_data_dir
    from write_checks import synthetic_records

    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:40])
    Following.open(data_dir).save_search("zebra", SavedQuery(q="zebrafish", mode="keyword"))
    records = synthetic_records("zebra", 2)
    for record in records:
        record["title"] = f"Zebrafish {record['id']}"
    Store(data_dir).upsert([paper_from_dict(record) for record in records])
    lexical.update(data_dir)
    digest = [PAPERSIFT, "digest", "--data-dir", str(data_dir)]

    kill_when_paused(digest, "follow-before-commit:1")  # inside the outbox write: nothing queued
    following = Following.open(data_dir)
    assert following.digests() == [] and following.mark("saved:1", "digest").seen_ids == frozenset()
    kill_when_paused(digest, "follow-before-commit:2")  # queued, files written, 'sent' not yet recorded
    assert [item.sent_at for item in following.digests()] == [None]
    subprocess.run(digest, check=True, capture_output=True)
    sent = following.digests()
    assert len(sent) == 1 and sent[0].sent_at and sent[0].papers == 2  # the waiting one, once; no second digest
    assert sorted(path.name for path in (data_dir / "digests").iterdir()) == ["digest-000001.html", "digest-000001.txt"]
    assert subprocess.run(digest, check=True, capture_output=True).stdout.startswith(b"0 new papers")
