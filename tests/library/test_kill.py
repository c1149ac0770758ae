"""SIGKILL inside a library write (the pause point `library-before-commit`: rows written, COMMIT
not run): what was committed before stays, nothing of the killed write is kept, the file is
intact, and the same command run again completes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from papersift.library.entries import Library
from papersift.library.interchange import export_library
from papersift.store import DB_FILE
from write_checks import kill_when_paused, write_jsonl

pytestmark = pytest.mark.drill

PAPERSIFT = str(Path(sys.executable).parent / "papersift")


def _integrity(data_dir: Path) -> str:
    with sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def test_a_kill_mid_write_keeps_the_committed_and_drops_the_open_write(tmp_path, sample_records):
    data_dir = tmp_path / "data"
    source = write_jsonl(tmp_path / "papers.jsonl", sample_records[:100])
    subprocess.run([PAPERSIFT, "ingest", str(source), "--data-dir", str(data_dir)], check=True, capture_output=True)
    ids = [record["id"] for record in sample_records[:60]]
    library = Library.open(data_dir)
    library.tag(ids[:3], "kept")
    library.set_note(ids[0], "committed note")
    exported = tmp_path / "library.json"
    library.tag(ids[10:50], "to import")
    exported.write_text(export_library(library, "json"))
    library.remove(ids[10:50])
    library.store.close()

    kill_when_paused([PAPERSIFT, "library", "tag", "big", *ids[3:60], "--data-dir", str(data_dir)],
                     "library-before-commit:1")
    kill_when_paused([PAPERSIFT, "library", "import", str(exported), "--data-dir", str(data_dir)],
                     "library-before-commit:1")
    assert _integrity(data_dir) == "ok"
    library = Library.open(data_dir)
    assert library.tags() == {"kept": 3} and library.entry(ids[0]).note == "committed note"
    assert library.seen() == set(ids[:3])

    subprocess.run([PAPERSIFT, "library", "tag", "big", *ids[3:60], "--data-dir", str(data_dir)], check=True,
                   capture_output=True)
    subprocess.run([PAPERSIFT, "library", "import", str(exported), "--data-dir", str(data_dir)], check=True,
                   capture_output=True)
    assert library.tags() == {"big": 57, "kept": 3, "to import": 40}
