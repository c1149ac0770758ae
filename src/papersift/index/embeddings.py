"""Text -> unit vectors with a built ONNX model (tokenizers + onnxruntime), plus a disk cache.

`Encoder` tokenizes, sorts texts by token count so each batch pads little, runs batches on
all cores and returns L2-normalised float32 rows in input order. `EmbeddingCache` keeps
vectors in SQLite keyed by (model, sha1 of the exact model input), so an unchanged paper is
never embedded twice and a killed run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.config import cpu_threads
from papersift.models import DEFAULT_MODEL, get_spec
from papersift.models.encoder_base import BuiltModelEncoder
from papersift.record import Paper, paper_text
from papersift.store import connect_readonly
from papersift.store.migrations import Migrations, UserVersion, immediate_transaction

EMBEDDINGS_FOLDER = "embeddings"
TOKENIZE_BLOCK = 4096  # papers tokenized at a time by embed_papers
PUBLISH_GROWTH = 0.25  # past the scan size, publish once the new vectors are this share of the index




_SENTENCE_END = re.compile(r"[.!?]\s+")
MIN_TAIL_CHARS = 40


def tail_text(paper: Paper, read_chars: int) -> str | None:
    """The second chunk of a paper the model could not read whole: its title, then its abstract
    from the start of the sentence the first chunk cut (`read_chars`: how much of paper_text the
    first chunk read). None when little is left."""
    abstract = (paper.abstract or "").strip()
    cut = read_chars - (len(paper_text(paper)) - len(abstract))
    if not abstract or cut <= 0 or len(abstract) - cut < MIN_TAIL_CHARS:
        return None
    ends = [match.end() for match in _SENTENCE_END.finditer(abstract, 0, cut)]
    start = ends[-1] if ends else cut
    return f"{paper.title.strip()}. {abstract[start:]}"


def make_encoder(model: str = DEFAULT_MODEL, **options):
    """The encoder of a built model: models/static.py's StaticEncoder for a static model, else the
    ONNX transformer's Encoder (same interface; options as Encoder's)."""
    if get_spec(model).distilled_from:
        from papersift.models.static import StaticEncoder

        return StaticEncoder(model, **options)
    return Encoder(model, **options)


CUDA_PROVIDER = "CUDAExecutionProvider"
GPU_BATCH = 128  # a GPU wants wide batches (not measured: no GPU was lent; docs/semantic.md)
GRAPH_LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
                "all": "ORT_ENABLE_ALL"}  # graph_level -> onnxruntime GraphOptimizationLevel
DEVICES = ("auto", "cpu", "cuda")


def choose_providers(device: str = "auto", available: Sequence[str] | None = None) -> list[str]:
    """onnxruntime execution providers for `device`: "auto" takes CUDA when this onnxruntime has
    it (the `onnxruntime-gpu` build) and the CPU otherwise, "cpu" always the CPU, "cuda" insists
    on CUDA (an error naming the fix when it is missing). The CPU stays listed after CUDA so any
    node CUDA lacks still runs."""
    if device not in DEVICES:
        raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
    if available is None:
        import onnxruntime as ort

        available = ort.get_available_providers()
    if device == "cpu" or (device == "auto" and CUDA_PROVIDER not in available):
        return ["CPUExecutionProvider"]
    if CUDA_PROVIDER not in available:
        raise ValueError("device cuda: this onnxruntime has no CUDAExecutionProvider; "
                         "pip install 'papersift[gpu]' (onnxruntime-gpu) instead of onnxruntime")
    return [CUDA_PROVIDER, "CPUExecutionProvider"]


def session_options(threads: int, graph_level: str = "all", parallel: bool = False):
    """onnxruntime session options: `threads` for the operators, graph optimizations at
    `graph_level`, no spinning. `parallel` runs independent graph branches at once on two
    threads (a BERT graph is one chain, so it measured no faster: docs/semantic.md)."""
    import onnxruntime as ort

    if graph_level not in GRAPH_LEVELS:
        raise ValueError(f"graph_level must be one of {', '.join(GRAPH_LEVELS)}, not {graph_level!r}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 2 if parallel else 1
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, GRAPH_LEVELS[graph_level])
    options.execution_mode = ort.ExecutionMode.ORT_PARALLEL if parallel else ort.ExecutionMode.ORT_SEQUENTIAL
    # Waiting threads sleep instead of spinning: on a shared, busy machine spinning
    # burns the very cores the other thread needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


def padding_share(lengths: Sequence[int], batch_size: int, bucketed: bool = True) -> float:
    """Share of the tokens a run computes that are padding: each batch is as wide as its longest
    text. Bucketed = sorted by length first (what Encoder does), else in the given order."""
    order = sorted(lengths) if bucketed else list(lengths)
    computed = sum(len(batch) * max(batch) for batch in
                   (order[start:start + batch_size] for start in range(0, len(order), batch_size)))
    return 1 - sum(lengths) / computed if computed else 0.0


class Encoder(BuiltModelEncoder):
    """Embeds queries and passages with one built transformer (ONNX); safe to share between threads."""

    # CPU batch: 8 texts ran 1.24x faster than 32 per CPU-second (and in wall time in two
    # interleaved repeats): a batch's attention scores ([batch, 12 heads, 256, 256] floats,
    # 100 MB at 32) stop fitting the caches, and sorted batches of 8 pad 1.0% instead of 3.1%.
    BATCH = 8

    def __init__(self, model: str = DEFAULT_MODEL, variant: str | None = None,
                 models_root: str | os.PathLike | None = None, threads: int | None = None,
                 max_tokens: int | None = None, device: str = "auto", graph_level: str = "all",
                 parallel: bool = False, bucketed: bool = True,
                 batch_size: int | None = None):
        import onnxruntime as ort

        super().__init__(model, variant, models_root, max_tokens)
        options = session_options(threads or cpu_threads(), graph_level, parallel)
        self.session = ort.InferenceSession(str(self.built.onnx_path(self.variant)), options,
                                            providers=choose_providers(device))
        # onnxruntime-gpu lists CUDA even where its libraries (CUDA 12, cuDNN 9) are missing and
        # then falls back to the CPU: what the session got is what counts
        self.providers = list(self.session.get_providers())
        self.on_gpu = CUDA_PROVIDER in self.providers
        self.batch_size = batch_size or (GPU_BATCH if self.on_gpu else self.BATCH)
        self.bucketed = bucketed  # False only to measure what sorting by length saves
        self._lock = threading.Lock()

    def passage_chunks(self, papers: Sequence[Paper]) -> list[list[list[int]]]:
        """Token ids of each paper's passages: its first max_tokens, and for a paper the model
        cannot read whole, a second passage from the sentence it cut (title + rest). Measured on
        the dev halves (a paper scores by its best passage): known-item en hybrid 0.594 -> 0.622,
        SciFact e5 semantic 0.653 -> 0.673; known-item zh semantic 0.281 -> 0.238 (README)."""
        inputs = [self.passage_input(paper_text(paper)) for paper in papers]
        heads = self.tokenizer.encode_batch(inputs)
        chunks = [[head.ids] for head in heads]
        tails: list[tuple[int, str]] = []
        for position, (paper, head) in enumerate(zip(papers, heads)):
            if len(head.ids) >= self.max_tokens:
                read = max(end for _, end in head.offsets) - len(self.spec.passage_prefix)
                tail = tail_text(paper, read)
                if tail is not None:
                    tails.append((position, self.passage_input(tail)))
        for (position, _), encoding in zip(tails, self.tokenizer.encode_batch([text for _, text in tails])):
            chunks[position].append(encoding.ids)
        return chunks

    def encode_token_ids(self, token_lists: Sequence[Sequence[int] | np.ndarray], batch_size: int | None = None,
                         on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed token id lists in batches of similar length (padding: `padding_share`); rows come back
        in input order."""
        batch_size = batch_size or self.batch_size
        out = np.zeros((len(token_lists), self.dim), dtype=np.float32)
        lengths = [len(ids) for ids in token_lists]
        order = np.argsort(lengths, kind="stable") if self.bucketed else np.arange(len(token_lists))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            width = max(len(token_lists[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for slot, i in enumerate(rows):
                token_ids = token_lists[i]
                ids[slot, :len(token_ids)] = token_ids
                mask[slot, :len(token_ids)] = 1
            with self._lock:
                out[rows] = self.session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]
            if on_batch:
                on_batch(len(rows))
        return out


def token_key(prefix: str, token_ids: Sequence[int]) -> bytes:
    """Cache key of one model input: the model and the exact (truncated) token ids it reads,
    so changing max_tokens keeps every vector of a text that was not truncated."""
    return hashlib.sha1(prefix.encode() + b"\x00" + np.asarray(token_ids, dtype=np.uint32).tobytes()).digest()


# Version 0 kept `vectors` WITHOUT ROWID: an index b-tree holds at most ~1,000 bytes of a row
# on its leaf page (4 KB pages), so every 1-1.5 KB vector spilled onto an overflow page of its
# own: 4.7 KB on disk per vector. A rowid table holds a row of up to ~4 KB on the leaf; with
# the unique index on the 20-byte key it takes 1.4 KB per 256-d vector, and writes and reads
# measured 3-4x faster (docs/semantic.md, "The embedding cache").
CACHE_TABLE = "CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, vec BLOB NOT NULL)"


def _cache_to_1(conn: sqlite3.Connection) -> None:
    old = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='vectors'").fetchone() is not None
    if old:
        conn.execute("ALTER TABLE vectors RENAME TO vectors_v0")
    conn.execute(CACHE_TABLE)
    if old:
        conn.execute("INSERT OR IGNORE INTO vectors (key, vec) SELECT key, vec FROM vectors_v0")
        conn.execute("DROP TABLE vectors_v0")


CACHE_MIGRATIONS = Migrations(UserVersion(), ((1, _cache_to_1),))  # PRAGMA user_version of cache.sqlite3
CACHE_SCHEMA_VERSION = CACHE_MIGRATIONS.latest


def migrate_cache(conn: sqlite3.Connection) -> bool:
    """Bring a writable cache to CACHE_SCHEMA_VERSION in one transaction (another process may
    have done it: the version is read again under the write lock); True when the steps left
    free pages (rows moved out of a version-0 table), so the file is worth a VACUUM."""
    migrated = CACHE_MIGRATIONS.ensure(conn, lambda: immediate_transaction(conn))
    return migrated and conn.execute("PRAGMA freelist_count").fetchone()[0] > 0


class EmbeddingCache:
    """SQLite table key -> float32 vector, in DATA_DIR/embeddings/cache.sqlite3 (WAL, safe to
    kill). Opening it writable migrates an older layout (migrate_cache); read-only, both read."""

    def __init__(self, data_dir: str | os.PathLike, readonly: bool = False):
        folder = Path(data_dir) / EMBEDDINGS_FOLDER
        if not readonly:
            folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "cache.sqlite3"
        if readonly:
            self.conn = connect_readonly(self.path, timeout=30)
        else:
            self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            if migrate_cache(self.conn):
                self.conn.execute("VACUUM")  # return the old table's pages to the file system

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for key, blob in self.conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk):
                found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: Iterable[tuple[bytes, np.ndarray]]) -> None:
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                                  [(key, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in items])

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]


@dataclass(frozen=True, slots=True)
class EmbedProgress:
    total: int
    cached: int
    embedded: int


def embed_with_cache(encoder: Encoder, cache: EmbeddingCache, texts: Sequence[str],
                     chunk_size: int = 256, batch_size: int | None = None,
                     on_progress: Callable[[EmbedProgress], None] | None = None,
                     as_queries: bool = False) -> np.ndarray:
    """Passage (or query) vectors for `texts`: cached ones are read, the rest embedded and
    written chunk by chunk (so a kill loses at most one chunk)."""
    to_input = encoder.query_input if as_queries else encoder.passage_input
    token_lists = encoder.tokenize([to_input(t) for t in texts])
    keys = [token_key(encoder.cache_key_prefix, ids) for ids in token_lists]
    vectors = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    found = cache.get_many(keys)
    missing = []
    for row, key in enumerate(keys):
        if key in found:
            vectors[row] = found[key]
        else:
            missing.append(row)
    done = 0
    cached = len(texts) - len(missing)
    if on_progress:
        on_progress(EmbedProgress(len(texts), cached, 0))
    # Chunks of similar length: long texts together, so batches inside a chunk pad little.
    missing.sort(key=lambda r: len(token_lists[r]))
    for start in range(0, len(missing), chunk_size):
        rows = missing[start:start + chunk_size]
        chunk_vectors = encoder.encode_token_ids([token_lists[r] for r in rows], batch_size)
        vectors[rows] = chunk_vectors
        cache.put_many((keys[r], v) for r, v in zip(rows, chunk_vectors))
        done += len(rows)
        if on_progress:
            on_progress(EmbedProgress(len(texts), cached, done))
    return vectors


@dataclass(frozen=True, slots=True)
class EmbedSummary:
    papers: int
    cached: int
    embedded: int
    seconds: float
    index_folder: Path | None
    bridge_folder: Path | None = None  # set when this run (re)built the term bridge
    texts: int = 0  # passages: a paper the model cannot read whole has two
    covered: int = 0  # papers with at least one vector


def embed_store(data_dir: str | os.PathLike, encoder: Encoder, **options) -> EmbedSummary:
    """Embed every paper of the data dir's store (see embed_papers for the options)."""
    from papersift.store import Store

    store = Store(Path(data_dir), readonly=True)
    try:
        seq_papers = list(store.iter_papers(0))
    finally:
        store.close()
    last_seq = max((seq for seq, _ in seq_papers), default=0)
    return embed_papers(data_dir, [paper for _, paper in seq_papers], encoder, last_seq, **options)


def embed_papers(data_dir: str | os.PathLike, papers: Sequence[Paper], encoder: Encoder, last_seq: int = 0,
                 seed_dirs: Sequence[str | os.PathLike] = (), publish_every: int = 4096, chunk_size: int = 256,
                 limit: int | None = None, on_progress: Callable[[EmbedProgress], None] | None = None,
                 on_terms_progress: Callable[[EmbedProgress], None] | None = None) -> EmbedSummary:
    """Embed the papers the cache lacks into DATA_DIR's vector index, publishing it as it grows.

    Shortest texts go first (title-only papers take milliseconds), so coverage climbs fast;
    the index is rewritten every `publish_every` new vectors, which is what lets search use
    semantic results while the run continues. Killing the run loses at most one chunk.
    `seed_dirs` are other data dirs whose caches are read first (an evaluation corpus reuses
    the vectors the main data dir already has for the same texts). Once every paper has a
    vector, the term bridge (index/bridge.py; multilingual models only) is rebuilt if the papers
    changed since it was.
    """
    import time

    from papersift.index import bridge
    from papersift.index import vectors as vector_index

    started = time.perf_counter()
    # Papers are tokenized TOKENIZE_BLOCK at a time and only the token ids of texts the cache
    # lacks are kept (int32): tokenizing every paper at once held ~40 KB per paper (the
    # tokenizer's encodings and Python int lists; 800 MB for 20K papers), which at 1M papers
    # does not fit in memory. A static model embeds each block at once (no sort by length is
    # needed: it does not pad), so it keeps no token ids at all.
    immediate = bool(encoder.spec.distilled_from) and limit is None
    row_papers: list[int] = []  # the paper (position in `papers`) of each text, chunks in order
    lengths: list[int] = []
    pending: dict[int, np.ndarray] = {}  # row -> token ids of a text still to embed
    keys: list[bytes] = []
    vectors = np.zeros((len(papers), encoder.dim), dtype=np.float32)  # grows for papers with two passages
    have = np.zeros(len(papers), dtype=bool)
    cached = embedded = 0
    with EmbeddingCache(data_dir) as cache:
        seeds = [EmbeddingCache(seed_dir, readonly=True) for seed_dir in seed_dirs
                 if (Path(seed_dir) / EMBEDDINGS_FOLDER / "cache.sqlite3").exists()]
        try:
            if on_progress and immediate:
                on_progress(EmbedProgress(len(papers), 0, 0))
            for block_start in range(0, len(papers), TOKENIZE_BLOCK):
                first_row = len(keys)
                for position, chunks in enumerate(encoder.passage_chunks(papers[block_start:block_start + TOKENIZE_BLOCK]),
                                                  block_start):
                    for ids in chunks:
                        row_papers.append(position)
                        lengths.append(len(ids))
                        keys.append(token_key(encoder.cache_key_prefix, ids))
                        pending[len(keys) - 1] = np.asarray(ids, dtype=np.int32)
                if len(keys) > len(vectors):
                    extra = max(len(keys) - len(vectors), len(vectors) // 2)
                    vectors = np.concatenate([vectors, np.zeros((extra, encoder.dim), dtype=np.float32)])
                    have = np.concatenate([have, np.zeros(extra, dtype=bool)])
                block_keys = keys[first_row:]
                found = cache.get_many(block_keys)
                for seed in seeds:
                    seeded = seed.get_many([key for key in block_keys if key not in found])
                    cache.put_many(seeded.items())
                    found.update(seeded)
                for row, key in enumerate(block_keys, first_row):
                    vector = found.get(key)
                    if vector is not None:
                        vectors[row], have[row] = vector, True
                        del pending[row]
                        cached += 1
                if immediate and pending:
                    rows = sorted(pending)
                    block_vectors = encoder.encode_token_ids([pending[row] for row in rows])
                    vectors[rows], have[rows] = block_vectors, True
                    cache.put_many((keys[row], vector) for row, vector in zip(rows, block_vectors))
                    embedded += len(rows)
                    pending.clear()
                if on_progress and immediate:
                    on_progress(EmbedProgress(len(papers), cached, embedded))
        finally:
            for seed in seeds:
                seed.close()
        vectors, have = vectors[:len(keys)], have[:len(keys)]
        missing = sorted(pending, key=lambda row: lengths[row])
        if limit is not None:
            missing = missing[:limit]

        def publish() -> Path:
            rows = np.flatnonzero(have)  # in paper order, a paper's chunks in order
            return vector_index.write_index(data_dir, encoder.name, [papers[row_papers[r]].id for r in rows],
                                            vectors[rows], papers_total=len(papers), last_seq=last_seq)

        if encoder.spec.distilled_from:  # a static model embeds every paper in seconds: publish once
            publish_every = max(publish_every, len(missing))
        current = vector_index.current_generation(data_dir, encoder.name)
        folder = current
        stale = current is None or _meta_differs(current, int(have.sum()), len(papers), last_seq)
        if on_progress and not immediate:
            on_progress(EmbedProgress(len(keys), cached, 0))
        if missing and stale:
            folder = publish()  # what the cache already holds is searchable at once
        since_publish = 0
        for start in range(0, len(missing), chunk_size):
            rows = missing[start:start + chunk_size]
            chunk_vectors = encoder.encode_token_ids([pending.pop(r) for r in rows])
            vectors[rows], have[rows] = chunk_vectors, True
            cache.put_many((keys[r], v) for r, v in zip(rows, chunk_vectors))
            embedded += len(rows)
            since_publish += len(rows)
            if on_progress:
                on_progress(EmbedProgress(len(keys), cached, embedded))
            if since_publish >= publish_every and publish_due(since_publish, int(have.sum()), vector_index.SCAN_MIN_ROWS):
                folder, since_publish = publish(), 0
        if embedded or stale:
            folder = publish()
        else:  # up to date; one written before faiss lacks its scan index (issue 20)
            vector_index.add_missing_scan(data_dir, encoder.name)
        bridge_folder = None
        # the term bridge is e5's (a static model's neighbours would be a worse translation)
        bridged = encoder.spec.multilingual and not encoder.spec.distilled_from
        if bridged and have.all() and bridge.is_stale(data_dir, encoder.name, len(papers), last_seq):
            bridge_folder = bridge.build_bridge(
                data_dir, papers, encoder, last_seq,
                embed_terms=lambda terms: embed_with_cache(encoder, cache, terms, batch_size=128,
                                                           on_progress=on_terms_progress, as_queries=True))
    covered = len({row_papers[row] for row in np.flatnonzero(have)})
    return EmbedSummary(len(papers), cached, embedded, time.perf_counter() - started, folder, bridge_folder,
                        texts=len(keys), covered=covered)


def publish_due(new_rows: int, rows: int, scan_min_rows: int) -> bool:
    """Whether a run should publish its vectors now (it already has `publish_every` new ones).
    Below the scan size a generation is a small file write; past it, each generation rewrites
    every row twice (vectors.npy and scan.faiss: ~1 GB at 1M x 256 float16), so a run
    publishes only once its new vectors are PUBLISH_GROWTH of the index: e5 at 1M papers would
    otherwise write a gigabyte for every 4,096 vectors."""
    return rows < scan_min_rows or new_rows >= PUBLISH_GROWTH * rows


def _meta_differs(folder: Path, rows: int, papers_total: int, last_seq: int) -> bool:
    from papersift.index.vectors import read_meta

    meta = read_meta(folder)
    return meta is None or (meta.rows, meta.papers_total, meta.last_seq) != (rows, papers_total, last_seq)
