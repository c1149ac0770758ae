"""papersift rank train from the command line: a data dir without vectors is one line, exit 1."""

from __future__ import annotations

from typer.testing import CliRunner

from papersift.cli import app
from papersift.search.ranker import model_paths
from search.conftest import indexed_copy

runner = CliRunner()


def test_rank_train_without_vectors_is_one_line(sample_data_dir, tmp_path):
    indexed_dir = indexed_copy(sample_data_dir, tmp_path)
    result = runner.invoke(app, ["rank", "train", "--data-dir", str(indexed_dir), "--queries", "50"])
    assert result.exit_code == 1, result.output
    assert "no vectors" in result.stderr and "papersift embed" in result.stderr
    assert not model_paths(indexed_dir)[0].exists()
