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


def test_the_speed_sweep_reports_each_setting_beside_its_load_and_ratio():
    from papersift.bench import embed_speed

    row = {"model": DEFAULT_MODEL, "label": embed_speed.Setting(variant="int8").label, "passages_per_s": 10.3,
           "ratio_to_baseline": 2.19, "runs_passages_per_s": [10.1, 10.5], "passages_per_cpu_s": 11.2, "load_average": [4.2, 5.0],
           "load_s": 0.3, "mean_tokens": 231.4, "padding": 0.0123}
    lines = embed_speed.markdown({"passages": 256, "repeats": 2, "settings": [row],
                                  "static": {"passages_per_s": 950.0, "load_average": 3.1}})
    assert ("| multilingual-e5-small | int8, 1 thr, graph all, batch 32, sorted by length, 256 tok | 10.3 | 2.19 | "
            "10.1, 10.5 | 11.2 | 4.2, 5.0 | 0.3 | 231.4 | 1.2% |") in lines
    assert lines[-1].startswith("Static model over the same passages: 950.0 passages/s")


def test_the_passage_sample_is_fixed_and_skips_papers_without_an_abstract():
    from papersift.bench.embed_speed import sample_passages
    from papersift.record import Paper

    papers = [Paper(id=str(i), title=f"T{i}", abstract=None if i % 2 else f"Abstract {i}.", venue="ICML", year=2020)
              for i in range(40)]
    first = sample_passages(papers, 8)
    assert first == sample_passages(papers, 8) and len(first) == 8
    assert all("Abstract" in text for text in first)
