"""papersift bench costs: the worst-case request report (shape, and that hybrid answered)."""

from __future__ import annotations

import pytest
from tests.search.conftest import indexed_copy
from typer.testing import CliRunner

from hybrid_service import add_vectors_and_bridge, hybrid_service
from papersift.bench.costs import (
    CONCURRENCY,
    SCENARIOS,
    long_query,
    markdown_report,
    run_costs_bench,
)
from papersift.cli import app
from papersift.config import MAX_QUERY_CHARS
from papersift.index.analyzers import has_cjk


def test_long_queries_are_new_texts_at_the_apis_limit():
    texts = [long_query(variant) for variant in range(12)]
    assert len(set(texts)) == 12
    assert all(MAX_QUERY_CHARS - 5 <= len(text) <= MAX_QUERY_CHARS and has_cjk(text) for text in texts)


@pytest.mark.drill
def test_report_has_every_scenario_at_each_concurrency(sample_data_dir, tmp_path):
    data_dir = indexed_copy(sample_data_dir, tmp_path / "data")
    add_vectors_and_bridge(data_dir)
    service, _, retrievers = hybrid_service(data_dir)
    report = run_costs_bench(data_dir, rounds=1, service=service)
    assert [(row["scenario"], row["concurrency"]) for row in report["results"]] == [
        (name, concurrency) for name in SCENARIOS for concurrency in CONCURRENCY]
    assert all(row["requests"] == row["concurrency"] and row["max_ms"] > 0 for row in report["results"])
    assert not [notice for notice in report["hybrid_notices"] if "not available" in notice]
    assert retrievers["hybrid"].calls > 0
    assert "| /api/facets hybrid | 5 | 5 |" in markdown_report(report)


def test_cli_needs_a_store(tmp_path):
    result = CliRunner().invoke(app, ["bench", "costs", "--data-dir", str(tmp_path / "none"),
                                      "--reports-dir", str(tmp_path / "reports")])
    assert result.exit_code != 0 and "no papersift store" in result.output
