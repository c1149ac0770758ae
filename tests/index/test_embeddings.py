"""Encoder and embedding cache on real papers: order, prefixes, cross-lingual sanity, resume after a kill."""

from __future__ import annotations

import json

import numpy as np
import pytest

from papersift.index import vectors
from papersift.index.embeddings import EmbeddingCache, Encoder, embed_store, embed_with_cache, paper_text
from papersift.index.encoder import CUDA_PROVIDER, GPU_BATCH, choose_providers, padding_share, tail_text
from papersift.models import DEFAULT_MODEL, build_model
from papersift.record import Paper, paper_from_dict
from papersift.store import Store


@pytest.fixture(scope="session")
def encoder() -> Encoder:
    build_model(DEFAULT_MODEL, log=lambda _: None)  # no-op when scripts/setup.sh has built it
    return Encoder(DEFAULT_MODEL, max_tokens=128)


@pytest.fixture(scope="module")
def papers(sample_records):
    return [paper_from_dict(record) for record in sample_records[:24]]


@pytest.mark.models
def test_rows_come_back_in_input_order_whatever_the_batching(encoder, papers):
    texts = [paper_text(p) for p in papers[:9]]
    together = encoder.encode_passages(texts, batch_size=4)
    one_by_one = np.stack([encoder.encode_passages([t])[0] for t in texts])
    # int8 activations are quantized per batch (dynamic scale), so batch-mates shift a vector
    # slightly; a row landing in another text's slot would give cosine far below this
    assert np.sum(together * one_by_one, axis=1).min() > 0.98
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-4)


@pytest.mark.models
def test_query_and_passage_prefixes_differ(encoder):
    text = "contrastive learning of visual representations"
    assert encoder.query_input(text) == "query: " + text
    assert float(encoder.encode_query(text) @ encoder.encode_passages([text])[0]) < 0.999


@pytest.mark.models
def test_chinese_queries_find_their_english_papers(encoder, shared_data):
    """Known-item dev queries in Chinese against their targets plus the other targets as distractors."""
    queries = [json.loads(line) for line in (shared_data / "knownitem" / "queries_dev.jsonl").read_text().splitlines()]
    queries = [q for q in queries if q["lang"] == "zh"][:12]
    targets = {}
    import gzip

    wanted = {q["target_id"] for q in queries}
    with gzip.open(shared_data / "ml_papers" / "papers.jsonl.gz", "rt") as handle:
        for line in handle:
            record = json.loads(line)
            if record["id"] in wanted:
                targets[record["id"]] = paper_text(paper_from_dict(record))
    target_ids = sorted(targets)
    passages = encoder.encode_passages([targets[i] for i in target_ids])
    hits = 0
    for query in queries:
        scores = passages @ encoder.encode_query(query["query"])
        hits += target_ids[int(np.argmax(scores))] == query["target_id"]
    assert hits >= 8  # chance would be 1 of 12


@pytest.mark.models
def test_cache_skips_what_it_has(encoder, papers, tmp_path):
    texts = [paper_text(p) for p in papers[:6]]
    with EmbeddingCache(tmp_path) as cache:
        first = embed_with_cache(encoder, cache, texts[:4])
        progress = []
        second = embed_with_cache(encoder, cache, texts, on_progress=progress.append)
        assert cache.count() == 6
    assert progress[-1].cached == 4 and progress[-1].embedded == 2
    np.testing.assert_allclose(second[:4], first, atol=1e-6)


@pytest.mark.models
def test_embed_store_resumes_and_publishes_coverage(encoder, papers, tmp_path):
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert(papers)
    store.close()
    partial = embed_store(data_dir, encoder, chunk_size=5, limit=10)  # as if killed after 10 texts
    assert (partial.cached, partial.embedded) == (0, 10)
    assert partial.bridge_folder is None  # the term bridge waits until every paper has a vector
    index = vectors.VectorIndex.open(data_dir, encoder.name)
    assert len(index) == 10 and index.meta.coverage == pytest.approx(partial.covered / len(papers))
    rest = embed_store(data_dir, encoder, chunk_size=5)
    assert rest.texts > len(papers)  # at 128 tokens many abstracts are cut: they get a second passage
    assert (rest.cached, rest.embedded) == (10, rest.texts - 10) and rest.covered == len(papers)
    index = vectors.VectorIndex.open(data_dir, encoder.name)
    assert len(index) == rest.texts and index.meta.coverage == 1.0 and index.rows_per_paper == 2
    assert rest.bridge_folder is not None and rest.bridge_folder.parent.name == f"{encoder.name}@terms"
    again = embed_store(data_dir, encoder)
    assert again.embedded == 0 and again.index_folder == index.folder  # nothing to do, nothing rewritten
    assert again.bridge_folder is None
    # a paper's stored vector is what the encoder gives for its text
    paper = papers[3]
    assert float(index.vector_of(paper.id) @ encoder.encode_passages([paper_text(paper)])[0]) > 0.98


@pytest.mark.models
def test_a_paper_the_model_cannot_read_whole_gets_a_second_passage_from_the_cut_sentence(encoder, papers):
    long_paper = max(papers, key=lambda paper: len(paper.abstract or ""))
    short_paper = Paper(id="x", title="A short one", abstract="Only one sentence here.", venue="ICML", year=2020)
    long_chunks, short_chunks = encoder.passage_chunks([long_paper, short_paper])
    assert len(short_chunks) == 1 and len(long_chunks) == 2
    assert len(long_chunks[0]) == encoder.max_tokens
    head = encoder.tokenizer.decode(long_chunks[0])
    tail = encoder.tokenizer.decode(long_chunks[1])
    assert tail.startswith(f"passage: {long_paper.title.strip()}.")
    resumed = tail[len(f"passage: {long_paper.title.strip()}. "):][:40]
    start = long_paper.abstract.index(resumed)  # the tail resumes inside the abstract,
    assert start > 0 and long_paper.abstract[:start].rstrip()[-1] in ".!?"  # at a sentence start,
    assert resumed[:20] in head or len(head) < len(long_paper.abstract)  # which the head had begun to read


def test_tail_text_starts_at_the_cut_sentence():
    paper = Paper(id="y", title="T", abstract="First sentence here. Second sentence is long enough to matter here. Third one.",
                  venue="ICML", year=2020)
    read = len("T. First sentence here. Second sen")  # the first passage stopped inside sentence two
    assert tail_text(paper, read) == "T. Second sentence is long enough to matter here. Third one."
    assert tail_text(paper, len("T. First sentence here. Second sentence is long enough to matter here. Th")) is None


@pytest.mark.models
@pytest.mark.parametrize("variant", ["fp32", "int8"])
def test_sorting_by_length_and_graph_optimizations_leave_the_vectors_unchanged(papers, variant):
    """Speed settings must not change what a paper's vector is (cached vectors are reused).
    int8 quantizes each batch's activations with one scale, so there batches of one text are
    compared; and from `extended` up onnxruntime fuses int8's quantize + matmul, which moves a
    vector (cosine 0.998 to the unfused graph), so int8's reference is `extended`, not `disable`."""
    texts = [paper_text(p) for p in papers[:12]]
    batch = 32 if variant == "fp32" else 1
    reference = Encoder(DEFAULT_MODEL, variant=variant, max_tokens=128, threads=1,
                        graph_level="disable" if variant == "fp32" else "extended",
                        bucketed=False, batch_size=batch, device="cpu").encode_passages(texts)
    settings = [{"graph_level": "all"}, {"graph_level": "extended"}, {"bucketed": True}]
    if variant == "fp32":
        settings.append({"batch_size": Encoder.BATCH})  # fp32 rows do not depend on their batch-mates
    for options in settings:
        fast = Encoder(DEFAULT_MODEL, variant=variant, max_tokens=128, threads=2, device="cpu",
                       **{"batch_size": batch, **options}).encode_passages(texts)
        np.testing.assert_allclose(fast, reference, atol=2e-5)


def test_sorting_by_length_cuts_the_padding_a_batch_computes():
    lengths = [10, 200, 12, 190, 11, 210]
    assert padding_share(lengths, 2, bucketed=False) == pytest.approx(1 - 633 / (2 * 200 + 2 * 190 + 2 * 210))
    assert padding_share(lengths, 2) == pytest.approx(1 - 633 / (2 * 11 + 2 * 190 + 2 * 210))
    assert padding_share(lengths, 1) == 0.0


def test_cuda_is_taken_when_onnxruntime_has_it_and_never_required():
    cpu_only = ["AzureExecutionProvider", "CPUExecutionProvider"]
    with_gpu = [CUDA_PROVIDER, "CPUExecutionProvider"]
    assert choose_providers("auto", cpu_only) == ["CPUExecutionProvider"]
    assert choose_providers("auto", with_gpu) == [CUDA_PROVIDER, "CPUExecutionProvider"]
    assert choose_providers("cpu", with_gpu) == ["CPUExecutionProvider"]
    with pytest.raises(ValueError, match="onnxruntime-gpu"):
        choose_providers("cuda", cpu_only)
    with pytest.raises(ValueError, match="device must be"):
        choose_providers("gpu", with_gpu)


@pytest.mark.models
def test_an_encoder_asks_onnxruntime_for_cuda_and_widens_its_batches_there(monkeypatch):
    """onnxruntime-gpu is not installed here: its provider list is patched, and the session
    records what the encoder asked for (a real CUDA session needs the GPU build)."""
    import onnxruntime as ort

    asked = []
    cuda_loads = True

    class RecordingSession:
        def __init__(self, path, options, providers):
            asked.append(providers)
            self.got = [p for p in providers if p != CUDA_PROVIDER or cuda_loads]

        def get_providers(self):
            return self.got

    monkeypatch.setattr(ort, "get_available_providers", lambda: [CUDA_PROVIDER, "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", RecordingSession)
    on_gpu = Encoder(DEFAULT_MODEL)
    assert asked[-1] == [CUDA_PROVIDER, "CPUExecutionProvider"] and on_gpu.on_gpu and on_gpu.batch_size == GPU_BATCH
    on_cpu = Encoder(DEFAULT_MODEL, device="cpu")
    assert asked[-1] == ["CPUExecutionProvider"] and not on_cpu.on_gpu and on_cpu.batch_size == Encoder.BATCH
    cuda_loads = False  # onnxruntime-gpu without the CUDA libraries: the session falls back to the CPU
    fell_back = Encoder(DEFAULT_MODEL)
    assert asked[-1][0] == CUDA_PROVIDER and not fell_back.on_gpu and fell_back.batch_size == Encoder.BATCH
class _CountingEncoder:
    """A stand-in encoder (no model): a paper whose abstract says "long" has two passages; a
    passage's vector is a function of its token ids. Records the sizes passage_chunks is given."""

    name, dim, cache_key_prefix = "counting", 8, "counting/v1"

    def __init__(self, static: bool):
        from types import SimpleNamespace

        self.spec = SimpleNamespace(distilled_from="x" if static else "", multilingual=False)
        self.blocks: list[int] = []

    def passage_chunks(self, papers):
        self.blocks.append(len(papers))
        return [[[len(paper.title), 7]] + ([[len(paper.title), 9, 11]] if "long" in (paper.abstract or "") else [])
                for paper in papers]

    def encode_token_ids(self, token_lists, batch_size=None, on_batch=None):
        rows = np.zeros((len(token_lists), self.dim), dtype=np.float32)
        for row, ids in enumerate(token_lists):
            for token in ids:
                rows[row, int(token) % self.dim] += 1.0
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("static", [True, False])
def test_embed_papers_tokenizes_in_blocks_and_writes_what_one_block_would(tmp_path, monkeypatch, static):
    """Papers are tokenized a block at a time (memory at 1M papers); the published rows, in
    paper order with a long paper's two passages together, are those of a single block."""
    from papersift.index import embeddings

    papers = [Paper(id=f"p{i}", title="t" * (i + 1), abstract="long text" if i % 3 == 0 else "short")
              for i in range(11)]
    whole = _CountingEncoder(static)
    embeddings.embed_papers(tmp_path / "whole", papers, whole, last_seq=11)
    monkeypatch.setattr(embeddings, "TOKENIZE_BLOCK", 2)
    blocked = _CountingEncoder(static)
    progress = []
    summary = embeddings.embed_papers(tmp_path / "blocked", papers, blocked, last_seq=11, on_progress=progress.append)
    assert whole.blocks == [11] and blocked.blocks == [2, 2, 2, 2, 2, 1]
    assert (summary.papers, summary.texts, summary.embedded, summary.cached, summary.covered) == (11, 15, 15, 0, 11)
    assert progress[-1].embedded == 15 and progress[-1].cached == 0
    one, other = (vectors.VectorIndex.open(tmp_path / name, "counting") for name in ("whole", "blocked"))
    assert one.paper_ids == other.paper_ids == ["p0", "p0", "p1", "p2", "p3", "p3", "p4", "p5", "p6", "p6",
                                                 "p7", "p8", "p9", "p9", "p10"]
    np.testing.assert_array_equal(one.vectors, other.vectors)
    again = embeddings.embed_papers(tmp_path / "blocked", papers, _CountingEncoder(static), last_seq=11)
    assert (again.cached, again.embedded) == (15, 0)


def test_past_the_scan_size_a_run_publishes_only_when_the_index_grew_by_a_quarter():
    from papersift.index.embeddings import publish_due

    assert publish_due(4096, 50_000, scan_min_rows=100_000)  # in memory: every publish_every vectors
    assert not publish_due(4096, 1_000_000, scan_min_rows=100_000)  # a gigabyte written for 0.4% more rows
    assert publish_due(250_000, 1_000_000, scan_min_rows=100_000)


def test_embed_papers_publishes_less_often_past_the_scan_size(tmp_path, monkeypatch):
    from papersift.index import embeddings

    published = []
    real_write = vectors.write_index
    monkeypatch.setattr(vectors, "write_index", lambda *args, **kw: published.append(len(args[2])) or real_write(*args, **kw))
    monkeypatch.setattr(vectors, "SCAN_MIN_ROWS", 12)
    papers = [Paper(id=f"p{i}", title="t" * (i + 1), abstract="short") for i in range(40)]
    embeddings.embed_papers(tmp_path, papers, _CountingEncoder(static=False), last_seq=40, publish_every=4, chunk_size=4)
    # nothing cached (published at once), every 4 vectors up to 12 rows, then only when the new
    # ones are a quarter of the index (16: 4 new; 24: 8 >= 6; 32: 8 >= 8; not 36: 4 < 9), then the end
    assert published == [0, 4, 8, 12, 16, 24, 32, 40]


def _version0_cache(data_dir, rows: int, dim: int = 256) -> dict[bytes, np.ndarray]:
    """A cache file as papersift wrote it before CACHE_SCHEMA_VERSION 1 (WITHOUT ROWID)."""
    import hashlib
    import sqlite3

    (data_dir / "embeddings").mkdir(parents=True)
    rng = np.random.default_rng(1)
    kept = {hashlib.sha1(str(number).encode()).digest(): rng.normal(size=dim).astype(np.float32) for number in range(rows)}
    with sqlite3.connect(data_dir / "embeddings" / "cache.sqlite3") as db:
        db.execute("CREATE TABLE vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO vectors VALUES (?, ?)", [(key, vec.tobytes()) for key, vec in kept.items()])
    db.close()
    return kept


def _assert_holds(cache: EmbeddingCache, kept: dict[bytes, np.ndarray]) -> None:
    found = cache.get_many(list(kept))
    assert found.keys() == kept.keys()
    assert all(np.array_equal(found[key], vec) for key, vec in kept.items())


def test_an_old_cache_is_read_as_it_is_and_migrated_whole_when_opened_for_writing(tmp_path):
    import sqlite3

    from papersift.index.embeddings import CACHE_SCHEMA_VERSION

    kept = _version0_cache(tmp_path, 3000)
    path = tmp_path / "embeddings" / "cache.sqlite3"
    before = path.stat().st_size
    with EmbeddingCache(tmp_path, readonly=True) as cache:  # a server: reads the old layout, changes nothing
        _assert_holds(cache, kept)
    assert path.stat().st_size == before
    with EmbeddingCache(tmp_path) as cache:
        _assert_holds(cache, kept)
        cache.put_many([(b"k" * 20, np.ones(256, dtype=np.float32))])
        assert cache.count() == 3001
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == CACHE_SCHEMA_VERSION
        tables = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'").fetchall())
    db.close()
    assert set(tables) == {"vectors"} and "WITHOUT ROWID" not in tables["vectors"]
    # 4.7 KB a 1 KB vector before (each on an overflow page of its own); measured 1.4 KB after.
    assert before / 3000 > 4000 and path.stat().st_size / 3001 < 1600


def test_a_migration_that_fails_midway_leaves_the_old_cache_whole(tmp_path, monkeypatch):
    import sqlite3

    from papersift.index import embedding_cache

    kept = _version0_cache(tmp_path, 200)
    real_execute = sqlite3.Connection.execute

    class Killed(Exception):
        pass

    class FailingConnection(sqlite3.Connection):
        def execute(self, sql, *args):
            if sql.startswith("DROP TABLE vectors_v0"):
                raise Killed  # after the rows were copied, before the old table goes
            return real_execute(self, sql, *args)

    connect = sqlite3.connect
    monkeypatch.setattr(embedding_cache.sqlite3, "connect", lambda *args, **kwargs: connect(*args, factory=FailingConnection, **kwargs))
    with pytest.raises(Killed):
        EmbeddingCache(tmp_path)
    monkeypatch.undo()
    with EmbeddingCache(tmp_path, readonly=True) as cache:
        _assert_holds(cache, kept)
    with EmbeddingCache(tmp_path) as cache:  # the next writer migrates it
        _assert_holds(cache, kept)
        assert cache.count() == 200


def test_embed_gives_a_generation_written_before_faiss_its_scan_index(tmp_path, monkeypatch):
    """A generation past the scan size written with an HNSW index (ann.usearch, `ann` in its
    meta) is searched by numpy until an up-to-date `embed` adds scan.faiss to it, in place."""
    from papersift.index import embeddings

    monkeypatch.setattr(vectors, "SCAN_MIN_ROWS", 12)
    papers = [Paper(id=f"p{i}", title="t" * (i + 1), abstract="short") for i in range(40)]
    embeddings.embed_papers(tmp_path, papers, _CountingEncoder(static=True), last_seq=40)
    folder = vectors.current_generation(tmp_path, "counting")
    (folder / vectors.SCAN_FILE).unlink()
    meta = json.loads((folder / "meta.json").read_text())
    meta["ann"] = meta.pop("scan")
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "ann.usearch").write_bytes(b"an HNSW graph")
    (folder / ".scan.faiss.999.tmp").write_bytes(b"what a killed run left")
    old = vectors.VectorIndex.open(tmp_path, "counting")
    assert old.meta.scan and old.scan is None
    query = old.vector_of("p7")
    assert old.search_ids(query, 3) == old.search_ids(query, 3, scan=False)

    again = embeddings.embed_papers(tmp_path, papers, _CountingEncoder(static=True), last_seq=40)
    assert again.embedded == 0 and vectors.current_generation(tmp_path, "counting") == folder
    assert sorted(path.name for path in folder.iterdir()) == ["ann.usearch", "ids.json", "meta.json", "scan.faiss",
                                                              "vectors.npy"]
    index = vectors.VectorIndex.open(tmp_path, "counting")
    assert index.scan is not None and index.scan.ntotal == 40
    assert index.search_ids(query, 3) == old.search_ids(query, 3)
    assert vectors.add_missing_scan(tmp_path, "counting") is None  # already there
