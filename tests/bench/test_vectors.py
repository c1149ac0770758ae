"""bench vectors: recall against exact float32 search per storage kind and HNSW setting, and its report."""

from __future__ import annotations

import numpy as np

from papersift.bench import vectors as bench
from papersift.index.vectors import VectorIndex, write_index

DIM = 24


def _unit(rows: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_papers_of_keeps_each_papers_best_row_once():
    row_papers = np.array([0, 0, 1, 2, 2, 3])
    assert bench.papers_of([1, 0, 4, 2, 3, 5], row_papers, 3) == [0, 2, 1]


def test_int8_rows_rank_as_the_float32_rows_up_to_rounding():
    matrix = _unit(400, 1)
    rows8, mean, scale = bench.int8_rows(matrix)
    assert rows8.dtype == np.int8 and np.abs(rows8).max() == 127
    query = _unit(1, 2)[0]
    np.testing.assert_allclose(rows8 @ (query / scale) + query @ mean, matrix @ query, atol=0.03)


def test_sweep_reports_every_setting_against_exact_search(tmp_path):
    """Exact float32 is the truth (recall 1); a wide HNSW search finds nearly all of it; one
    row per storage kind x degree x search breadth; papers with two rows count once."""
    matrix = _unit(1500, 3)
    ids = [f"p{row // 2}" if row < 200 else f"p{row}" for row in range(len(matrix))]  # the first 100 papers: 2 rows
    write_index(tmp_path, "m", ids, matrix, 1400, 1)
    index = VectorIndex.open(tmp_path, "m")
    report = bench.run(index, _unit(12, 4), connectivity=[8], expansion_add=[64], expansion_search=[16, 256],
                       storage=["f32", "f16"], threads=1)
    assert report["papers"] == 1400 and report["rows"] == 1500 and report["stored_as"] == "f32"
    exact = {row["storage"]: row for row in report["exact"]}
    assert exact["f32"]["recall"] == 1.0 and exact["f16"]["recall"] >= 0.95 and 0.5 <= exact["i8"]["recall"] <= 1.0
    assert [(row["storage"], row["expansion_search"]) for row in report["hnsw"]] == [
        ("f32", 16), ("f32", 256), ("f16", 16), ("f16", 256)]
    wide = [row for row in report["hnsw"] if row["expansion_search"] == 256]
    assert all(row["recall"] >= 0.95 and row["index_bytes"] > 0 and row["rss_mb"] > 0 for row in wide)
    f32_size, f16_size = (row["index_bytes"] for row in wide)
    assert f16_size < f32_size
    text = bench.markdown(report)
    assert "| f16 | 8 | 64 | 256 |" in text and "## Exact search (numpy) per storage kind" in text


def test_sweep_builds_an_int8_hnsw_index(tmp_path):
    """usearch's int8 kind, which the product does not store, is measured all the same."""
    matrix = _unit(800, 5)
    write_index(tmp_path, "m", [f"p{row}" for row in range(len(matrix))], matrix, 800, 1)
    report = bench.run(VectorIndex.open(tmp_path, "m"), _unit(8, 6), connectivity=[8], expansion_add=[64],
                       expansion_search=[256], storage=["i8"], threads=1, exact_kinds=False)
    assert [row["storage"] for row in report["exact"]] == ["f32"]
    (row,) = report["hnsw"]
    assert row["storage"] == "i8" and row["recall"] >= 0.5


def test_a_generation_past_the_ann_size_is_measured_with_its_own_index(tmp_path):
    matrix = _unit(1200, 7)
    write_index(tmp_path, "m", [f"p{row}" for row in range(len(matrix))], matrix, 1200, 1, ann_min_rows=1000, storage="f16")
    report = bench.run(VectorIndex.open(tmp_path, "m"), _unit(8, 8), expansion_search=[64, 256], storage=[],
                       exact_kinds=False)
    assert report["stored_as"] == "f16"
    assert [(row["storage"], row["build_s"], row["connectivity"], row["expansion_search"]) for row in report["hnsw"]] == [
        ("f16", None, 16, 64), ("f16", None, 16, 256)]
    assert report["hnsw"][1]["recall"] >= 0.9
    assert "| f16 | 16 | — | 256 | built |" in bench.markdown(report)
