"""The test tiers themselves: a missing resource fails its tier's tests with one line naming
it (never a silent skip), and under CI a test that did not run fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tiers

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def fresh_checks():
    tiers.missing.cache_clear()
    yield
    tiers.missing.cache_clear()


def test_each_missing_resource_is_one_line_naming_it_and_the_fix(fresh_checks, monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERSIFT_MODELS_DIR", str(tmp_path / "no-models"))
    monkeypatch.setenv("PAPERSIFT_SHARED_DATA", str(tmp_path / "no-shared"))
    monkeypatch.setattr(tiers, "CHROMIUM", str(tmp_path / "no-chromium"))
    lines = {tier: tiers.missing(tier) for tier in ("models", "shared", "browser")}
    assert lines == {
        "models": f"models tier: multilingual-e5-small is not built in {tmp_path / 'no-models'}; "
                  "run `papersift models build --all` (or set $PAPERSIFT_MODELS_DIR)",
        "shared": f"shared tier: ml_papers, scifact, csfcube, knownitem, s2cs_queries, zhterms not found in "
                  f"{tmp_path / 'no-shared'}; put the shared data at ../shared/data beside the checkout or set "
                  "$PAPERSIFT_SHARED_DATA",
        "browser": f"browser tier: no chromium at {tmp_path / 'no-chromium'}; apt-get install chromium "
                   "fonts-wqy-microhei (scripts/setup.sh), or set $PAPERSIFT_CHROMIUM",
    }
    assert tiers.missing("drill") is None  # drills need time, not a resource


def test_a_missing_linter_fails_the_lint_tier_with_one_line(fresh_checks, monkeypatch, tmp_path):
    monkeypatch.setattr(tiers, "LINT_BIN", tmp_path)
    install = ("install the lint dependency group (scripts/setup.sh, or pip install 'ruff>=0.15' 'mypy>=1.15' "
               "'import-linter>=2.13')")
    assert tiers.missing("lint") == f"lint tier: ruff, mypy, lint-imports not in {tmp_path}; {install}"
    ruff = tmp_path / "ruff"
    ruff.write_text("#!/bin/sh\n")
    ruff.chmod(0o755)
    tiers.missing.cache_clear()
    assert tiers.missing("lint") == f"lint tier: mypy, lint-imports not in {tmp_path}; {install}"


def test_every_tier_is_a_registered_marker(pytestconfig):
    registered = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    assert set(tiers.TIERS) | {tiers.CORE} <= registered


def test_the_fixture_corpus_is_what_its_readme_says(sample_records, labeled_records, title_only_records):
    assert len(sample_records) == 1996 and len(labeled_records) == 1992 and len(title_only_records) == 216
    assert {record["venue"] for record in sample_records} == {"NeurIPS", "ICML", "ICLR", "AISTATS", "COLT", "UAI", "COLM"}
    assert {(r["venue"], r["year"]) for r in labeled_records} == {("ICLR", 2024)}
    assert all(r["area"] and r["source"].startswith("airas-papers-db:") for r in labeled_records)
    assert all(not r["abstract"] or len(r["abstract"]) < 30 for r in title_only_records)


def run_pytest(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if key != "CI"} | env
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          env=environ, capture_output=True, text=True, timeout=300)


@pytest.mark.drill
def test_a_models_test_without_models_fails_with_the_tier_line_and_builds_nothing(tmp_path):
    empty = tmp_path / "models"
    result = run_pytest("tests/index/test_bridge.py::test_chinese_words_find_their_english_terms",
                        PAPERSIFT_MODELS_DIR=str(empty))
    assert result.returncode == 1, result.stdout
    assert "1 error" in result.stdout
    assert f"models tier: multilingual-e5-small is not built in {empty}" in result.stdout
    assert not empty.exists()  # failed before the fixture could start a build


@pytest.mark.drill
def test_under_ci_a_test_that_did_not_run_fails_the_run():
    selection = ("tests/test_tiers.py", "-k", "fixture_corpus")  # runs one test, deselects the others
    assert run_pytest(*selection).returncode == 0
    under_ci = run_pytest(*selection, CI="true")
    assert under_ci.returncode == 1, under_ci.stdout
    assert "1 passed, 5 deselected" in under_ci.stdout
    assert "CI: every tier must run, but 0 test(s) were skipped and 5 deselected" in under_ci.stdout
