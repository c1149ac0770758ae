"""papersift bench lexical on a small real corpus: both engines measured, reports written."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from papersift.bench.lexical import Latency, bench_queries, bench_query_sets, set_means_ms
from papersift.cli import app


def test_latency_percentiles_and_qps():
    latency = Latency.of([0.001] * 98 + [0.010, 0.020])
    assert latency.p50_ms == 1.0 and latency.p99_ms == 10.0
    assert abs(latency.qps - 100 / 0.128) < 1e-6


def test_queries_are_the_real_query_strings(shared_data):
    queries = bench_queries(shared_data)
    assert len(queries) == 100 + 25 and "deep learning" in queries
    sets = bench_query_sets(shared_data)
    assert [len(set_queries) for set_queries in sets.values()] == [100, 25]


def test_means_per_query_set_follow_the_query_order_through_repeats():
    sets = {"short": ["a", "b"], "long": ["c"]}
    seconds = [0.001, 0.003, 0.010, 0.002, 0.004, 0.020]  # two passes over a, b, c
    means = set_means_ms(seconds, sets)
    assert means == pytest.approx({"short": (1 + 3 + 2 + 4) / 4, "long": 15.0})


@pytest.mark.drill
def test_bench_command_writes_reports_and_json(sample_jsonl, tmp_path):
    reports = tmp_path / "reports"
    result = CliRunner().invoke(app, ["bench", "lexical", "--corpus", str(sample_jsonl), "--repeats", "1",
                                      "--reports-dir", str(reports), "--json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["qps"] > 0 and data["bm25s_qps"] > 0 and data["ratio"] == data["qps"] / data["bm25s_qps"]
    assert data["papers"] > 1900 and data["queries"] == 125
    assert {"papersift_search", "papersift_engine", "papersift_rank", "bm25s"} <= set(data["latency"])
    # the engine's calls alone cost less than the pages built from them
    assert data["engine_ratio"] > data["ratio"]
    assert data["index_bytes"]["papersift"] > 0 and data["build_s"]["bm25s"] > 0
    written = sorted(path.suffix for path in reports.iterdir())
    assert written == [".json", ".md"]
    markdown = next(reports.glob("*.md")).read_text()
    assert "| bm25s |" in markdown and "| papersift_engine |" in markdown and "QPS ratio" in markdown
    by_set = data["by_query_set"]
    assert {name: entry["queries"] for name, entry in by_set.items()} == {"s2cs_queries": 100, "knownitem_en": 25}
    assert set(by_set["knownitem_en"]["mean_ms"]) == set(data["latency"])
    assert "| knownitem_en | 25 |" in markdown
    # the page's time split names its stages; the row store its size and decoding cost
    assert {"query", "engine", "rows", "highlights", "facets", "other"} <= set(data["stage_ms"])
    assert all(value >= 0 for value in data["stage_ms"].values())
    assert sum(data["stage_ms"].values()) <= data["latency"]["papersift_search"]["mean_ms"] * 1.01
    rows = data["rows"]
    assert rows["papers"] == data["papers"] and 0 < rows["bytes_per_paper"] < rows["json_bytes_per_paper"]
    assert rows["decode_ms_per_page"] > 0 and rows["fresh_decode_ms_per_page"] > 0
    assert "page time split" in markdown and "Row store:" in markdown


def test_engine_calls_fetch_the_rows_of_the_pages_the_service_answers(served_data_dir):
    from papersift.bench.lexical import TOP_K, engine_calls
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    service = SearchService(served_data_dir)
    all_words, relaxed = "graph neural networks", "graph transformer zebraqq"
    answer = engine_calls(service.backend, [all_words, relaxed])
    rows_reader = service.backend._current().rows
    for text, rows_at in ((all_words, 0), (relaxed, 1)):
        page = service.search(SearchRequest(query=text, mode="keyword", size=TOP_K))
        assert page.total > 0
        rows = answer(text)[rows_at]
        assert rows_reader.paper_ids(rows[:TOP_K]) == [hit.paper.id for hit in page.hits]
    assert len(answer(all_words)) == 2  # its page is full: the facet aggregation runs too
