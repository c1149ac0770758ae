"""bench embed: which retrievers each stage searches with, and its report."""

from __future__ import annotations

import numpy as np

from papersift.bench.embed import markdown, stage_retrievers
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL, STATIC_MODEL
from papersift.search.hybrid import HybridRetriever


def _write(data_dir, model, dim):
    vectors = np.eye(2, dim, dtype=np.float32)
    write_index(data_dir, model, ["a", "b"], vectors, papers_total=2, last_seq=2)


def test_each_stage_searches_with_its_own_model_and_only_where_its_vectors_exist(tmp_path):
    service = object()  # the retrievers only keep it (no search runs here)
    assert stage_retrievers(tmp_path, service, "static") is None
    assert stage_retrievers(tmp_path, service, "e5") is None
    _write(tmp_path, STATIC_MODEL, 256)
    static = stage_retrievers(tmp_path, service, "static")
    assert static["semantic"].model == STATIC_MODEL and static["semantic"].dense_trust < 1.0
    assert isinstance(static["hybrid"], HybridRetriever) and static["hybrid"].dense is static["semantic"]
    assert stage_retrievers(tmp_path, service, "e5") is None  # static vectors are not e5's
    _write(tmp_path, DEFAULT_MODEL, 384)
    assert stage_retrievers(tmp_path, service, "e5")["semantic"].model == DEFAULT_MODEL


def test_markdown_puts_each_stage_in_its_column_and_marks_the_missing():
    report = {"papers": 10, "threads": 1,
              "first_pass": {"total_s": 2.5, "model_load_s": 1.0, "embed_and_publish_s": 1.5, "covered": 10,
                             "papers": 10, "static_build_s": 800.0, "static_tokens": 249998},
              "throughput": [{"model": STATIC_MODEL, "variant": "static", "threads": 1, "passages": 10,
                              "seconds": 0.1, "passages_per_s": 100.0}],
              "quality": [{"benchmark": "SciFact", "slice": "all", "stage": stage, "mode": mode, "metric": "ndcg@10",
                           "value": value, "queries": 5, "seconds": 1.0}
                          for stage, mode, value in (("keyword", "keyword", 0.69), ("static", "semantic", 0.4),
                                                     ("static", "hybrid", 0.7))]}
    text = markdown(report)
    assert "**2.5 s**" in text and "249,998 tokens" in text
    assert f"| {STATIC_MODEL} | static, 1 thread(s) | 10 | 100.0 |" in text
    assert "| SciFact | all | ndcg@10 | 0.6900 | 0.4000 | 0.7000 | — | — |" in text
