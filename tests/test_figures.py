"""docs/figures.toml holds every figure README.md's status table and docs/benchmarks.md's tables
publish; the tables are generated from it (scripts/figures.py), and the cheap figures are
measured again here (shared tier) against their tolerance."""

from __future__ import annotations

import copy
import importlib.util
import re
import shlex
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("figures_script", ROOT / "scripts" / "figures.py")
assert _spec is not None and _spec.loader is not None
figures_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures_script)


@pytest.fixture(scope="module")
def figures() -> dict:
    return figures_script.load()


def test_the_tables_are_what_the_figures_file_generates(figures):
    assert figures_script.stale(figures) == [], "run python scripts/figures.py after editing docs/figures.toml"


def test_a_table_that_differs_from_the_file_is_found(figures):
    changed = copy.deepcopy(figures)
    changed["figures"]["scifact_keyword"]["value"] = 0.5
    assert figures_script.stale(changed) == ["README.md: table readme", "docs/benchmarks.md: table benchmarks_quality"]


def test_every_figure_says_what_it_measures_and_when_and_each_is_published(figures):
    tables = " ".join(cell for name in figures_script.TABLES for row in figures[name] for cell in row.values())
    used = set(re.findall(r"\{(\w+)\}", tables))
    for key, figure in figures["figures"].items():
        assert {"benchmark", "command", "dataset", "value", "measured"} <= set(figure), key
        assert isinstance(figure["value"], str) or figure["tolerance"] > 0, f"{key}: a number needs a tolerance"
        assert key in used, f"{key} is in no table"


def eval_command(figure: dict) -> list[str]:
    """The CLI arguments of the figure's `papersift eval`, its ../shared/data paths read from the shared data dir."""
    words = shlex.split(figure["command"])
    assert words[:2] == ["papersift", "eval"], figure["command"]
    return words[1:]


@pytest.mark.shared
def test_the_cheap_figures_have_not_drifted(figures, shared_data, tmp_path):
    rerun = {key: figure for key, figure in figures["figures"].items() if figure.get("rerun")}
    assert rerun  # SciFact keyword at least: its corpus is indexed in seconds
    for key, figure in rerun.items():
        arguments = [word.replace("../shared/data", str(shared_data)) for word in eval_command(figure)]
        result = CliRunner().invoke(app, [*arguments, "--cache-dir", str(tmp_path / key), "--json"])
        assert result.exit_code == 0, result.output
        measured = orjson.loads(result.stdout[result.stdout.index("{"):])["metrics"]["all"][figure["metric"].lower()]
        assert measured == pytest.approx(figure["value"], abs=figure["tolerance"]), (key, measured)


# A measured figure in prose: a metric value (0.xyz), a latency, a rate, a time or a ratio.
MEASURED_IN_PROSE = re.compile(r"\b0\.\d{2,}\b|\d\s?(?:ms|QPS)\b|(?<!every )\b\d+(?:\.\d+)?\s?(?:s|min)\b|\d(?:\.\d+)?×")
PUBLISHED = [ROOT / "README.md", ROOT / "docs" / "benchmarks.md"]


def figures_in_prose(text: str) -> list[str]:
    """The measured figures of a page outside its generated tables and its code blocks."""
    text = re.sub(r"<!-- figures:(\w+).*?<!-- /figures:\1 -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [line for line in text.splitlines() if MEASURED_IN_PROSE.search(line)]


def test_the_published_pages_state_figures_only_in_their_generated_tables():
    for page in PUBLISHED:
        assert figures_in_prose(page.read_text(encoding="utf-8")) == [], page.name


def test_a_figure_typed_into_prose_is_found():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert figures_in_prose(text + "\nquickstart serves in ~10 s; hybrid MRR@10 0.61, p50 40 ms, 0.7× bm25s\n") == [
        "quickstart serves in ~10 s; hybrid MRR@10 0.61, p50 40 ms, 0.7× bm25s"]
    assert figures_in_prose("progress every 30 s, 44,693 papers, Python 3.10–3.13") == []
