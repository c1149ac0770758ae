"""bench vectors: recall against exact float32 search per way of searching, and its report."""

from __future__ import annotations

import numpy as np

from papersift.bench import vectors as bench
from papersift.index.vectors import VectorIndex, write_index

DIM = 24


def _unit(rows: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_paper_rows_keeps_each_papers_best_row_once():
    row_papers = np.array([0, 0, 1, 2, 2, 3])
    assert bench.paper_rows([1, 0, 4, 2, 3, 5], row_papers, 3) == [1, 4, 2]


def test_tie_aware_recall_counts_a_paper_as_good_as_the_last_true_one():
    matrix = np.array([[1.0, 0.0], [0.8, 0.6], [0.8, 0.6], [0.0, 1.0]], dtype=np.float32)
    query = np.array([1.0, 0.0], dtype=np.float32)
    row_papers = np.arange(4)
    truth, tied, worse = [[0, 1]], [[0, 2]], [[0, 3]]
    assert bench.recall(tied, truth, row_papers) == 0.5
    assert bench.tie_aware_recall(tied, truth, matrix, query[None, :]) == 1.0
    assert bench.tie_aware_recall(worse, truth, matrix, query[None, :]) == 0.5


def test_int8_rows_rank_as_the_float32_rows_up_to_rounding():
    matrix = _unit(400, 1)
    rows8, mean, scale = bench.int8_rows(matrix)
    assert rows8.dtype == np.int8 and np.abs(rows8).max() == 127
    query = _unit(1, 2)[0]
    np.testing.assert_allclose(rows8 @ (query / scale) + query @ mean, matrix @ query, atol=0.03)


def test_every_search_is_measured_against_exact_search(tmp_path):
    """numpy in memory is the truth (recall 1); the memmap and the faiss scan (built here:
    below the scan size the generation has none) find the same papers; IVF once per nlist
    x nprobe, and probing every list is exact; papers with two rows count once."""
    matrix = _unit(1500, 3)
    ids = [f"p{row // 2}" if row < 200 else f"p{row}" for row in range(len(matrix))]  # the first 100 papers: 2 rows
    write_index(tmp_path, "m", ids, matrix, 1400, 1, storage="f16")
    report = bench.run(VectorIndex.open(tmp_path, "m"), _unit(12, 4), nlist=[8], nprobe=[1, 8], threads=1)
    assert report["papers"] == 1400 and report["rows"] == 1500 and report["stored_as"] == "f16"
    rows = {(row["search"], row.get("nprobe")): row for row in report["searches"]}
    assert list(rows) == [("numpy f32 in memory", None), ("numpy f16 memmap", None), ("numpy i8 in memory", None),
                          ("faiss scan f16", None), ("faiss IVF f16", 1), ("faiss IVF f16", 8)]
    for name in ("numpy f32 in memory", "numpy f16 memmap", "faiss scan f16", "faiss IVF f16"):
        key = (name, 8 if "IVF" in name else None)
        assert rows[key]["recall"] == rows[key]["tie_recall"] == 1.0, key
    assert rows[("faiss IVF f16", 1)]["recall"] < 1.0
    assert 0.5 <= rows[("numpy i8 in memory", None)]["recall"] <= 1.0
    scan = rows[("faiss scan f16", None)]
    assert scan["build_s"] is not None and scan["bytes"] > 1500 * DIM * 2
    text = bench.markdown(report)
    assert "| faiss IVF f16 | 8 | 8 |" in text and "| numpy f16 memmap | — | — | — |" in text


def test_a_generation_past_the_scan_size_is_measured_with_its_own_scan_index(tmp_path):
    matrix = _unit(1200, 7)
    write_index(tmp_path, "m", [f"p{row}" for row in range(len(matrix))], matrix, 1200, 1, scan_min_rows=1000)
    index = VectorIndex.open(tmp_path, "m")
    report = bench.run(index, _unit(8, 8), int8=False)
    assert [row["search"] for row in report["searches"]] == ["numpy f32 in memory", "numpy f32 memmap",
                                                             "faiss scan f32 (its scan.faiss)"]
    own = report["searches"][-1]
    assert own["build_s"] is None and own["recall"] == 1.0
    assert own["bytes"] == (index.folder / "scan.faiss").stat().st_size
