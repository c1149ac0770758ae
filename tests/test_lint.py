"""ruff, mypy and import-linter report nothing: CI runs only pytest, so the linters run here (the
`lint` tier).

They read their settings from pyproject.toml ([tool.ruff], [tool.mypy], [tool.importlinter]: the
layers of docs/architecture.md) and run from the venv's bin dir (tests/tiers.py checks they are
installed: a missing one fails this tier with one line).
mypy gets a fresh cache under the test's tmp path, so every run checks every module from
scratch (about 9 s on an idle core, see docs/testing.md) and no cache is left in the checkout.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tiers import LINT_BIN

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 300  # mypy's full check takes well under a minute even on a loaded machine


def run_linter(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_BIN / command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def test_ruff_finds_nothing_in_src_and_tests():
    result = run_linter("ruff", "check", "--no-cache", "src", "tests")
    if result.returncode != 0:
        pytest.fail(f"ruff check src tests:\n{result.stdout}{result.stderr}", pytrace=False)


def test_mypy_finds_nothing_in_the_package(tmp_path):
    result = run_linter("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))  # files: pyproject [tool.mypy]
    if result.returncode != 0:
        pytest.fail(f"mypy:\n{result.stdout}{result.stderr}", pytrace=False)
    assert "no issues found" in result.stdout, result.stdout  # it checked files, and found nothing


def test_the_import_contracts_hold():
    result = run_linter("lint-imports", "--no-cache")  # contracts: pyproject [tool.importlinter]
    if result.returncode != 0:
        pytest.fail(f"lint-imports:\n{result.stdout}{result.stderr}", pytrace=False)
    assert "0 broken" in result.stdout, result.stdout  # it read the contracts, and all were kept
