"""Vector index: numpy and faiss scans against brute force, filters, old HNSW generations, atomic swaps."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from papersift.index import vectors
from papersift.index.vectors import VectorIndex, top_k, write_index

DIM = 32


def _unit(rows: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def scan_index(tmp_path_factory):
    """6,000 float16 vectors past a lowered scan size (the default is larger), with ties: every
    100th row repeats row 0. The truth is float32 search over the float16 rows."""
    data_dir = tmp_path_factory.mktemp("vec")
    matrix = _unit(6000, 1)
    matrix[::100] = matrix[0]
    write_index(data_dir, "m", [f"p{i}" for i in range(len(matrix))], matrix, 6000, 1, scan_min_rows=1000, storage="f16")
    return VectorIndex.open(data_dir, "m"), matrix.astype(np.float16).astype(np.float32)


def _brute_force(matrix: np.ndarray, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """The k best rows by float32 inner product, ties by lower row."""
    rows = np.arange(len(matrix)) if allowed is None else np.flatnonzero(allowed)
    return rows[np.lexsort((rows, -(matrix[rows] @ query)))[:k]]


def test_top_k_orders_best_first_and_breaks_ties_by_row():
    scores = np.array([0.1, 0.9, 0.5, 0.9, 0.3], np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 2]
    assert top_k(scores, 10).tolist() == [1, 3, 2, 4, 0]
    assert top_k(scores, 0).tolist() == []
    tied = np.zeros(1000, np.float32)
    tied[[3, 500, 999]] = 1.0
    assert top_k(tied, 5).tolist() == [3, 500, 999, 0, 1]  # the first rows of the tie at the cut


def test_exact_search_equals_brute_force(tmp_path):
    matrix = _unit(500, 2)
    write_index(tmp_path, "m", [f"p{i}" for i in range(500)], matrix, 500, 7)
    index = VectorIndex.open(tmp_path, "m")
    assert index.scan is None and index.meta.last_seq == 7
    query = _unit(1, 3)[0]
    rows, scores = index.search(query, 10)
    expected = np.argsort(-(matrix @ query), kind="stable")[:10]
    assert rows.tolist() == expected.tolist()
    np.testing.assert_allclose(scores, (matrix @ query)[expected], rtol=1e-6)
    assert index.search_ids(query, 1)[0][0] == f"p{expected[0]}"


def test_the_faiss_scan_finds_exactly_what_brute_force_finds(scan_index):
    """Past the scan size faiss scans every row: the same rows as brute force, ties (row 0's
    copies) in row order, float32 scores."""
    index, matrix = scan_index
    assert index.scan is not None and index.scan.ntotal == len(matrix) and isinstance(index.vectors, np.memmap)
    for query in [*_unit(20, 4), matrix[0]]:
        rows, scores = index.search(query, 10)
        assert rows.tolist() == _brute_force(matrix, query, 10).tolist()
        np.testing.assert_allclose(scores, matrix[rows] @ query, atol=1e-6)
    assert index.search(matrix[0], 3)[0].tolist() == [0, 100, 200]
    assert index.search(matrix[0], 10_000)[0].shape == (6000,)


@pytest.mark.parametrize("share, path", [(0.02, "numpy"), (0.1, "selector"), (0.5, "unfiltered first")])
def test_filtered_search_finds_exactly_the_allowed_nearest(scan_index, share, path, monkeypatch):
    """A small allowed set is gathered and searched by numpy; a larger one is scanned by faiss,
    with the mask as its ID selector, or, when most rows are allowed, first without it
    (oversampled). Each way finds exactly the allowed nearest."""
    index, matrix = scan_index
    monkeypatch.setattr(vectors, "EXACT_SUBSET_ROWS", 300)  # 120 rows allowed, 600, or 3,000
    scans = []
    real_scan = vectors._scan_rows
    monkeypatch.setattr(vectors, "_scan_rows", lambda *args: scans.append(args[3]) or real_scan(*args))
    allowed = np.random.default_rng(5).random(len(matrix)) < share
    for query in _unit(10, 6):
        rows, scores = index.search(query, 10, allowed)
        assert rows.tolist() == _brute_force(matrix, query, 10, allowed).tolist()
        np.testing.assert_allclose(scores, matrix[rows] @ query, atol=1e-6)
    used = {"numpy": [], "selector": [True] * 10, "unfiltered first": [False] * 10}[path]
    assert [params is not None for params in scans] == used


def test_a_filter_the_unfiltered_scan_cannot_satisfy_falls_back_to_the_selector(scan_index, monkeypatch):
    """Most rows allowed, but not the query's nearest: the oversampled scan brings back too few
    allowed rows, and the selector scan finds them."""
    index, matrix = scan_index
    monkeypatch.setattr(vectors, "EXACT_SUBSET_ROWS", 300)
    query = _unit(1, 17)[0]
    allowed = (matrix @ query) < np.quantile(matrix @ query, 0.6)
    scans = []
    real_scan = vectors._scan_rows
    monkeypatch.setattr(vectors, "_scan_rows", lambda *args: scans.append(args[3]) or real_scan(*args))
    rows, _ = index.search(query, 10, allowed)
    assert rows.tolist() == _brute_force(matrix, query, 10, allowed).tolist()
    assert [params is not None for params in scans] == [False, True]


def test_a_filter_allowing_fewer_rows_than_asked_returns_only_those(scan_index):
    index, matrix = scan_index
    allowed = np.zeros(len(matrix), dtype=bool)
    allowed[[5, 4000, 5999]] = True
    rows, _ = index.search_scan(matrix[4000], 10, allowed)
    assert rows.tolist()[0] == 4000 and sorted(rows.tolist()) == [5, 4000, 5999]


def test_a_generation_written_with_hnsw_is_searched_by_numpy(tmp_path):
    """Before faiss, a generation past the size held ann.usearch and said `ann` in its meta:
    it opens and answers exactly, without its (no longer read) HNSW index."""
    matrix = _unit(300, 15)
    write_index(tmp_path, "m", [f"p{i}" for i in range(300)], matrix, 300, 1, scan_min_rows=100, storage="f16")
    folder = vectors.current_generation(tmp_path, "m")
    (folder / vectors.SCAN_FILE).rename(folder / "ann.usearch")
    meta = orjson.loads((folder / "meta.json").read_bytes())
    meta["ann"] = meta.pop("scan")
    (folder / "meta.json").write_bytes(orjson.dumps(meta))
    index = VectorIndex.open(tmp_path, "m")
    assert index.meta.scan and index.scan is None and isinstance(index.vectors, np.memmap)
    query = _unit(1, 16)[0]
    assert index.search(query, 5)[0].tolist() == _brute_force(matrix.astype(np.float16).astype(np.float32), query, 5).tolist()


def test_new_generation_replaces_the_old_one(tmp_path):
    write_index(tmp_path, "m", ["a", "b"], _unit(2, 7), 10, 1)
    first = VectorIndex.open(tmp_path, "m")
    write_index(tmp_path, "m", ["a", "b", "c"], _unit(3, 8), 10, 2)
    second = VectorIndex.open(tmp_path, "m")
    assert len(second) == 3 and second.meta.coverage == pytest.approx(0.3)
    assert first.folder != second.folder and not first.folder.exists()
    assert len(first.vectors) == 2  # an open reader keeps what it read
    assert second.mask_for_ids(["c", "zzz"]).tolist() == [False, False, True]
    with pytest.raises(ValueError, match="ids but"):
        write_index(tmp_path, "m", ["a"], _unit(2, 9), 10, 3)


@pytest.mark.parametrize("faiss_first", [True, False])
def test_faiss_and_onnxruntime_load_together_in_either_order(tmp_path, faiss_first):
    # usearch loaded before onnxruntime crashed the interpreter (segfault); a server past the
    # scan size opens the scan index first, then embeds the query, a command the other way
    import subprocess
    import sys

    script = f"""
import numpy as np
if not {faiss_first}:
    import onnxruntime
from papersift.index.vectors import VectorIndex, write_index
vectors = np.random.default_rng(0).standard_normal((40, 8)).astype(np.float32)
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
write_index({str(tmp_path)!r}, "m", [str(i) for i in range(40)], vectors, 40, 1, scan_min_rows=10)
index = VectorIndex.open({str(tmp_path)!r}, "m")
assert index.scan is not None
import onnxruntime
onnxruntime.InferenceSession
print(index.search_ids(vectors[3], 1)[0][0])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "3"


def test_papers_with_several_chunks_are_found_once_by_their_best_chunk(tmp_path):
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((5, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = ["a", "a", "b", "c", "c"]  # a and c have two chunks each
    write_index(tmp_path, "m", ids, vectors, papers_total=4, last_seq=1)
    index = VectorIndex.open(tmp_path, "m")
    assert index.meta.rows == 5 and index.meta.papers == 3 and index.meta.coverage == pytest.approx(3 / 4)
    assert index.rows_per_paper == 2 and index.row_of == {"a": 0, "b": 2, "c": 3}
    assert list(index.first_rows()) == [0, 2, 3]
    assert list(index.mask_for_ids(["a", "c"])) == [True, True, False, True, True]
    query = vectors[4]  # c's second chunk
    hits = index.search_ids(query, 3)
    assert hits[0][0] == "c" and len({paper_id for paper_id, _ in hits}) == 3
    best = {paper_id: max(float(vectors[row] @ query) for row in range(5) if ids[row] == paper_id) for paper_id in "abc"}
    assert {paper_id: round(score, 5) for paper_id, score in hits} == {k: round(v, 5) for k, v in best.items()}
    assert [paper_id for paper_id, _ in index.search_ids(query, 1)] == ["c"]


@pytest.mark.parametrize("rows, scan_min_rows", [(500, 100_000), (3000, 1000)])
def test_float16_storage_ranks_as_float32_and_says_so_in_its_meta(tmp_path, rows, scan_min_rows):
    """A float16 generation (in memory below the scan size, memory-mapped and scanned by faiss
    above it) finds the same neighbours as exact float32 search, with float32 scores close to
    the exact ones."""
    matrix = _unit(rows, 11)
    write_index(tmp_path, "m", [f"p{i}" for i in range(rows)], matrix, rows, 1, scan_min_rows=scan_min_rows, storage="f16")
    index = VectorIndex.open(tmp_path, "m")
    assert index.meta.storage == "f16" and np.load(index.folder / "vectors.npy", mmap_mode="r").dtype == np.float16
    assert (index.scan is not None) == (rows >= scan_min_rows)
    recalls = []
    for query in _unit(30, 12):
        exact = np.argsort(-(matrix @ query), kind="stable")[:10]
        found, scores = index.search(query, 10)
        assert scores.dtype == np.float32 and np.all(np.diff(scores) <= 0)
        np.testing.assert_allclose(scores, matrix[found] @ query, atol=2e-3)
        recalls.append(len(set(found.tolist()) & set(exact.tolist())) / 10)
    assert np.mean(recalls) >= 0.95
    assert index.vector_of("p3").dtype == np.float32


def test_a_generation_without_storage_in_its_meta_reads_as_float32(tmp_path):
    """Generations written before the storage setting have no `storage` key: no migration."""
    write_index(tmp_path, "m", ["a", "b"], _unit(2, 13), 2, 1)
    folder = vectors.current_generation(tmp_path, "m")
    meta = orjson.loads((folder / "meta.json").read_bytes())
    del meta["storage"]
    (folder / "meta.json").write_bytes(orjson.dumps(meta))
    index = VectorIndex.open(tmp_path, "m")
    assert index.meta.storage == "f32" and index.vectors.dtype == np.float32
    assert [paper for paper, _ in index.search_ids(_unit(2, 13)[1], 1)] == ["b"]


def test_storage_follows_the_model_setting_and_rejects_unknown_kinds(tmp_path, monkeypatch):
    from papersift.models import DEFAULT_MODEL, get_spec

    monkeypatch.setenv(vectors.STORAGE_ENV, "f32")
    assert vectors.storage_for(DEFAULT_MODEL) == "f32"
    monkeypatch.delenv(vectors.STORAGE_ENV)

    assert vectors.storage_for(DEFAULT_MODEL) == get_spec(DEFAULT_MODEL).vector_storage
    assert vectors.storage_for(f"{DEFAULT_MODEL}@terms") == "f32"
    write_index(tmp_path, DEFAULT_MODEL, ["a"], _unit(1, 14), 1, 1)
    assert VectorIndex.open(tmp_path, DEFAULT_MODEL).meta.storage == get_spec(DEFAULT_MODEL).vector_storage
    with pytest.raises(ValueError, match="unknown vector storage 'i4'"):
        write_index(tmp_path, "m", ["a"], _unit(1, 14), 1, 1, storage="i4")


def test_a_generation_takes_a_file_of_rows_by_moving_it(tmp_path):
    """write_index given a .npy path moves that file into the generation (a streamed build
    never holds its rows); a file in another dtype than the storage's is refused."""
    rows = np.eye(3, 4, dtype=np.float32)
    path = tmp_path / "streamed.npy"
    np.save(path, rows)
    write_index(tmp_path, "use-m3@phrases", ["a", "b", "c"], path, papers_total=3, last_seq=3)
    index = VectorIndex.open(tmp_path, "use-m3@phrases")
    assert not path.exists() and index is not None and index.paper_ids == ["a", "b", "c"]
    assert np.array_equal(np.asarray(index.vectors), rows) and index.meta.dim == 4
    np.save(path, rows.astype(np.float16))
    with pytest.raises(ValueError, match="float16 rows"):
        write_index(tmp_path, "use-m3@phrases", ["a", "b", "c"], path, papers_total=3, last_seq=3)
    with pytest.raises(ValueError, match="2 ids but 3 vectors"):
        write_index(tmp_path, "use-m3@phrases", ["a", "b"], rows, papers_total=3, last_seq=3)
