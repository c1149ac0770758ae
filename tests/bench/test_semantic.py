"""bench semantic: its query sets and its report."""

from __future__ import annotations

from collections import Counter

from papersift.bench.semantic import SemanticReport, bench_queries


def test_query_sets_are_the_s2_log_and_known_item_by_language(shared_data):
    queries = bench_queries(shared_data)
    assert Counter(query_set for query_set, _ in queries) == {"S2": 100, "known-item en": 25, "known-item zh": 25}
    assert all(text.strip() for _, text in queries)


def test_markdown_lists_every_latency_row():
    report = SemanticReport("D", "m", "fp32", "fp32", 2, "x86_64", 10, 1.0,
                            throughput={"texts": 8, "seconds": 1.0, "per_s": 8.0, "mean_tokens": 200.0},
                            latency={name: {"p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0, "mean_ms": 1.5, "n": 4}
                                     for name in ("hybrid page", "hybrid page, known-item zh queries")},
                            scan={"build_s": 0.1, "recall_at_k": 0.99})
    text = report.markdown()
    assert "| hybrid page | 1.0 | 2.0 | 3.0 | 1.5 | 4 |" in text
    assert "| hybrid page, known-item zh queries |" in text
    assert "faiss scan: built in 0.1 s over 10 vectors; recall@20 against numpy 0.99" in text


def test_markdown_gives_each_pages_time_split_largest_first():
    report = SemanticReport("D", "m", "fp32", "fp32", 2, "x86_64", 10, 1.0,
                            throughput={"texts": 8, "seconds": 1.0, "per_s": 8.0, "mean_tokens": 200.0},
                            latency={}, scan={"build_s": 0.1, "recall_at_k": 0.99},
                            stage_ms={"hybrid page": {"dense": 2.5, "encode": 9.0, "other": 0.4}})
    assert "hybrid page time split (mean ms a page): encode 9.0, dense 2.5, other 0.4" in report.markdown()
