"""papersift bench ... from the command line: bad options and missing inputs are one-line errors."""

from __future__ import annotations

from typer.testing import CliRunner

from papersift.cli import app
from papersift.models import DEFAULT_MODEL

runner = CliRunner()


def test_bench_vectors_rejects_an_ivf_without_lists(tmp_path):
    result = runner.invoke(app, ["bench", "vectors", "--data-dir", str(tmp_path), "--nlist", "0"])
    assert result.exit_code == 2
    assert "--nlist" in result.stderr and "Traceback" not in result.output


def test_bench_vectors_without_vectors_says_what_to_run(tmp_path):
    result = runner.invoke(app, ["bench", "vectors", "--data-dir", str(tmp_path), "--reports-dir", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert f"no {DEFAULT_MODEL} vectors in {tmp_path}" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()
