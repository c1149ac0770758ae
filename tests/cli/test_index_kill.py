"""SIGKILL of `papersift index` while it builds the term lexicon: the staged file it leaves is
removed by the next run (issue 29, item 6)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.index import termlexicon
from write_checks import ingested_dir, kill_when_paused

pytestmark = pytest.mark.drill
PAPERSIFT = str(Path(sys.executable).parent / "papersift")


def lexicon_debris(data_dir: Path) -> list[str]:
    return sorted(path.name for path in data_dir.iterdir()
                  if path.name.startswith((f".{termlexicon.LEXICON_FILE}.", ".phrasecounts.")))


def test_a_killed_index_leaves_no_term_lexicon_debris_after_the_next_run(tmp_path, sample_records):
    data_dir = ingested_dir(tmp_path, sample_records[:300])
    kill_when_paused([PAPERSIFT, "index", "--data-dir", str(data_dir)], "termlexicon-staged:1")
    left = lexicon_debris(data_dir)
    assert any(name.endswith(".building") for name in left), left  # what the killed run left
    assert not termlexicon.lexicon_path(data_dir).exists()

    again = CliRunner().invoke(app, ["index", "--data-dir", str(data_dir)])
    assert again.exit_code == 0, again.output
    assert termlexicon.lexicon_path(data_dir).exists()
    assert lexicon_debris(data_dir) == []
