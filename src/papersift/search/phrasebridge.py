"""Chinese terms read through the phrase vectors (index/phrasevectors.py): nearest English phrases.

Composition (search/termlexicon.py) reads a term as the dictionary's senses papers use; it is
sure when every step is a dictionary sense, and wrong when the dictionary lacks the domain's
sense (强化学习 → "strengthening learning"). USE multilingual v3 embeds the Chinese term and
the corpus's phrases in one space, so the nearest phrases are candidate readings that need no
dictionary ("reinforcement learning"). The two are combined in `choose`: see there for the rule
and the measurements behind it.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import orjson

from papersift.index import vectors as vector_index
from papersift.index.analyzers import CJK_RUN
from papersift.index.phrasevectors import PHRASES_MODEL, Encode, encode_texts
from papersift.search.stages import stage
from papersift.search.termlexicon import ALTERNATIVES, TermLexicon, TermReading, analyzed

# How a term the composition is unsure of is read (see `choose`); zhterms keyword half A,
# MRR@10: 5 neighbours 0.467-0.473 (1: 0.465, 3: 0.463, 10: 0.453, 20: 0.444); papers weight 0.05
# (0: 0.444, 0.03: 0.463, 0.07: 0.458, 0.1: 0.450); cosine floor 0.3 (0.2: 0.467, 0.5: 0.467).
NEIGHBOURS = 5  # nearest phrases considered per term
MIN_COSINE = 0.3  # a farther phrase is no reading at all
PAPERS_WEIGHT = 0.05  # per log(1 + papers using the phrase), added to the cosine
MEMO_SIZE = 20_000
# Which candidate reads the term (`choose`, issue 26, branch zhneigh; docs/crosslingual.md "Which
# phrase reads a term"), decided on zhterms keyword half A (success@10 128 -> 131 of 156 terms,
# MRR@10 0.703 -> 0.720), confirmed on half B (113 -> 115 of 144, 0.726 -> 0.734):
# - papers past PAPERS_CAP add nothing: past a few dozen papers a phrase is one papers use, and
#   more papers say it is more general, not that it is the term ("function", 8,741 papers, had
#   beaten "kernel function", 118, for 核函数); half A: no cap 128, 20-50 129, 60-100 128;
# - BACK_WEIGHT per share of the token's characters that the candidate's words read back to
#   through the glossary's English side ("transition kernel" -> 转移 + 核: all of 转移核;
#   "nuclear" -> 核: a third); half A with the cap: 0.1 130, 0.2 and 0.3 131 (MRR@10 0.717 both),
#   the whole phrase looked up alone instead of each run of its words 131 (0.711);
# - FRAGMENT_PENALTY for a phrase cut out of a longer one (`is_fragment`: "s distance" of
#   "hamming's distance"); half A MRR@10 0.717 -> 0.720, success@10 the same.
# The same score (`candidate_score`) orders the nearest phrases holding the glossary's pieces
# (`nearest_holding`) and weighs the glossary's unsure entries (crosslingual): half A the same
# figures, one reading righted (非负矩阵分解); half B 115 -> 116 of 144, MRR@10 0.734 -> 0.741.
PAPERS_CAP = 50
BACK_WEIGHT = 0.2
FRAGMENT_PENALTY = 0.1
# A nearest phrase is a guess: on zhterms half A the English term was the nearest phrase for 57
# of 156 terms (docs/crosslingual.md), so it is shown as "maybe", never as the reading.
NEIGHBOUR_CONFIDENCE = 0.4
# A server's exact nearest-phrase search (`PhraseBridge.prepare`, `Projection`): every row projected
# on the phrase vectors' first principal directions, with the norm of what the projection leaves
# out. A row's cosine differs from the projected product by at most the product of the two
# left-out norms (Cauchy-Schwarz), so only rows whose upper bound reaches a lower bound of the
# k-th best cosine are scored in full: the same k phrases as the product over every row.
# The lower bound is the k-th best exact cosine of the GUESSES rows whose first-stage products are
# largest (it was the k-th best lower bound of the projection, loose for the terms the projection
# reads badly: 降维 kept 21,683 rows and paid the full product). The directions are read in
# stages (PROJECTED_STAGES: the dims each stage ends at): every row's product on the first 64,
# then only the rows still in on the next ones, each stage's left-out norm ruling rows out, until
# FEW_CANDIDATES or fewer are left. Rows scored in full for the 113 texts the zhterms and known-item
# dev readings ask (issue 32): p50 93, p95 254, at most 756 (the k-th best lower bound over 128
# dims: p50 963, 22 texts past 1/16 of the rows, i.e. the full product; one 128-dim stage with the
# exact bound: at most 4,840). Float rounding of the products is far below BOUND_SLACK.
PROJECTED_STAGES = (64, 128, 192)
GUESSES = 32
FEW_CANDIDATES = 256
BOUND_SLACK = 1e-3
PCA_SAMPLE = 20_000  # rows the principal directions are estimated from (any basis keeps the bound exact)
# Candidates past 1/FULL_SCAN_SHARE of the rows are scored by the full product instead: gathering
# rows from the memory map one by one cost more (22,608 rows: 220-550 ms against ~100 ms, load 15).
FULL_SCAN_SHARE = 16
# A stage's products for candidates past 1/WHOLE_STAGE_SHARE of the rows: over every row (one
# contiguous product) rather than over the candidates' rows gathered (in a page, load ~1.5: gathering
# always, p50 6.7-7.0 ms a search; past 1/4 3.9-4.6; past 1/8 4.0-4.1; past 1/16 4.0-4.3).
WHOLE_STAGE_SHARE = 8


@dataclass(frozen=True, slots=True)
class Neighbour:
    key: str  # the lexicon's phrase key
    cosine: float


class PhraseBridge:
    """Nearest lexicon phrases of a text (exact: one product over the phrase rows), remembered
    per text for the life of the generation.

    Nothing is read until a term needs it (a sure composition never does), and the vectors are
    memory-mapped, not read: opening 125K x 512 rows took 2.7 s read, 0.02 s mapped, and a
    product over the mapped rows measured as fast as over an array once the pages are cached
    (25-80 ms against 20-65 ms on the busy 2-core machine)."""

    def __init__(self, folder: Path, encode: Encode = encode_texts):
        self.folder = folder
        self.encode = encode
        self._vectors: np.ndarray | None = None
        self._keys: list[str] = []
        self._row_of: dict[str, int] = {}
        self._memo: dict[str, list[Neighbour]] = {}
        self._encoded: dict[str, np.ndarray] = {}  # a term's USE vector: `neighbours` and `choose` both need it
        self._batches: dict[tuple[str, ...], np.ndarray] = {}  # candidates encoded together (candidate_cosines)
        self._lock = threading.Lock()
        self._projection: Projection | None = None  # set by prepare()

    @classmethod
    def open(cls, data_dir: str | os.PathLike, encode: Encode = encode_texts) -> PhraseBridge | None:
        folder = vector_index.current_generation(data_dir, PHRASES_MODEL)
        meta = vector_index.read_meta(folder) if folder is not None else None
        return cls(folder, encode) if folder is not None and meta is not None and meta.rows else None

    def _load(self) -> np.ndarray:
        with self._lock:
            if self._vectors is None:
                keys = orjson.loads((self.folder / "ids.json").read_bytes())
                self._row_of = {key: row for row, key in enumerate(keys)}
                self._keys = keys
                self._vectors = np.load(self.folder / "vectors.npy", mmap_mode="r")
        return self._vectors

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors if self._vectors is not None else self._load()

    @property
    def row_of(self) -> dict[str, int]:
        if self._vectors is None:
            self._load()
        return self._row_of

    def query_vector(self, text: str) -> np.ndarray:
        """The text's USE vector, encoded once (remembered like the neighbours, MEMO_SIZE)."""
        found = self._encoded.get(text)
        if found is None:
            with stage("reading.encode"):
                found = self.encode([text])[0]
            with self._lock:
                if len(self._encoded) >= MEMO_SIZE:
                    self._encoded.clear()
                self._encoded[text] = found
        return found

    def batch_vectors(self, texts: tuple[str, ...]) -> np.ndarray:
        """The texts' USE vectors, encoded in one call and remembered per tuple (a term read again
        asks for the same candidates; one call, as before, so the vectors are the same)."""
        found = self._batches.get(texts)
        if found is None:
            with stage("reading.encode"):
                found = self.encode(list(texts))
            with self._lock:
                if len(self._batches) >= MEMO_SIZE:
                    self._batches.clear()
                self._batches[texts] = found
        return found

    def neighbours(self, text: str, k: int = NEIGHBOURS) -> list[Neighbour]:
        """The k phrases nearest to `text`, nearest first."""
        found = self._memo.get(text)
        if found is None or len(found) < k:
            vectors = self.vectors
            query = self.query_vector(text)
            with stage("reading.neighbours"):
                rows, scores = self._nearest(vectors, query, k)
            found = [Neighbour(self._keys[row], float(score)) for row, score in zip(rows, scores)]
            with self._lock:
                if len(self._memo) >= MEMO_SIZE:
                    self._memo.clear()
                self._memo[text] = found
        return found[:k]

    def _nearest(self, vectors: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The k rows with the largest product with `query`, best first (ties: lower row first),
        and their products: over the candidates the projection cannot rule out when prepared,
        else over every row."""
        projection = self._projection
        if projection is not None and 0 < k < len(vectors):
            candidates = projection.candidates(vectors, query, k)
            if FULL_SCAN_SHARE * len(candidates) < len(vectors):  # else the full product costs less
                scores = row_products(vectors, candidates, query)
                best = vector_index.top_k(scores, k)  # candidates ascend, so ties keep the lower row first
                return candidates[best], scores[best]
        scores = vectors @ query
        rows = vector_index.top_k(scores, k)
        return rows, scores[rows]

    def prepare(self) -> None:
        """Project every row for the exact pruned search (`_nearest`): a server at start (~1-2 s
        and ~100 MB for 126,090 x 512 rows); a one-query process scans the rows instead."""
        vectors = self.vectors
        if self._projection is not None or len(vectors) <= PROJECTED_STAGES[-1]:
            return
        projection = Projection.of(vectors)
        with self._lock:
            self._projection = projection

    def warm_up(self) -> None:
        """Load the encoder, page the vectors in and project them now (a server's first query
        must not wait)."""
        self.neighbours("预热", 1)
        self.prepare()


class Projection:
    """The phrase rows on their first principal directions, read in stages (PROJECTED_STAGES):
    each stage's products for every row (`blocks`, one n x width array a stage, contiguous) and
    the norm each row leaves out of the directions up to the stage's end (`left_out`)."""

    def __init__(self, basis: np.ndarray, blocks: list[np.ndarray], left_out: list[np.ndarray]):
        self.basis = basis  # d x m, orthonormal columns, principal first
        self.basis64 = basis.astype(np.float64)
        self.blocks = blocks
        self.left_out = left_out
        self.ends = [int(end) for end in np.cumsum([block.shape[1] for block in blocks])]

    @classmethod
    def of(cls, vectors: np.ndarray, stages: Sequence[int] = PROJECTED_STAGES) -> Projection:
        step = max(1, len(vectors) // PCA_SAMPLE)
        sample = np.asarray(vectors[::step], dtype=np.float32)
        _, directions = np.linalg.eigh((sample.T @ sample).astype(np.float64))  # ascending: principal ones last
        basis = np.ascontiguousarray(directions[:, ::-1][:, :stages[-1]], dtype=np.float32)
        starts = [0, *stages[:-1]]
        blocks = [np.empty((len(vectors), end - start), dtype=np.float32) for start, end in zip(starts, stages)]
        left_out = [np.empty(len(vectors), dtype=np.float32) for _ in stages]
        for first in range(0, len(vectors), 8192):
            block = np.asarray(vectors[first:first + 8192], dtype=np.float32)
            near = block @ basis
            # |v|^2 - |B'v|^2 (B orthonormal); the 1e-6 under the root keeps float cancellation
            # from ever making the bound smaller than the left-out norm (it adds at most 1e-3)
            whole = np.einsum("ij,ij->i", block, block, dtype=np.float64)
            kept = np.zeros(len(block), dtype=np.float64)
            for at, (start, end) in enumerate(zip(starts, stages)):
                blocks[at][first:first + len(block)] = near[:, start:end]
                kept += np.einsum("ij,ij->i", near[:, start:end], near[:, start:end], dtype=np.float64)
                left_out[at][first:first + len(block)] = np.sqrt(np.maximum(whole - kept, 0.0) + 1e-6)
        return cls(basis, blocks, left_out)

    def candidates(self, vectors: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
        """The rows (ascending) that may be among the k with the largest product with `query`
        (0 < k < rows): every row reaching the k-th best product, ties included."""
        rows = len(vectors)
        near = query @ self.basis
        approximate = self.blocks[0] @ near[:self.ends[0]]
        # the k-th best exact product of the rows the first stage ranks highest: at least k rows
        # reach it, so the k-th best of all does too; a row whose upper bound is below it cannot
        # be among the k best (nor tie with the k-th). Its products are rounded as the final
        # scoring's are (`row_products`).
        guessed = min(max(GUESSES, k), rows)
        guess = np.sort(np.argpartition(approximate, rows - guessed)[rows - guessed:])
        exact = row_products(vectors, guess, query)
        kth = np.partition(exact, guessed - k)[guessed - k]
        query64 = query.astype(np.float64)
        candidates = np.arange(0)
        start = 0
        for block, end, stage_left_out in zip(self.blocks, self.ends, self.left_out):
            left_out = stage_left_out
            if start:  # a later stage: its products for the rows still in
                part = near[start:end]
                if WHOLE_STAGE_SHARE * len(candidates) >= rows:
                    approximate += (block @ part)[candidates]
                else:
                    approximate += np.take(block, candidates, axis=0) @ part
                left_out = stage_left_out[candidates]
            query_left_out = float(np.linalg.norm(query64 - self.basis64[:, :end] @ near[:end].astype(np.float64)))
            upper = left_out * np.float32(query_left_out)  # each row's upper bound, less BOUND_SLACK
            upper += approximate
            kept = np.flatnonzero(upper >= kth - BOUND_SLACK)
            candidates = candidates[kept] if start else kept
            approximate = approximate[kept]
            if len(candidates) <= FEW_CANDIDATES:
                break
            start = end
        return candidates


# Rows whose products are taken together (`row_products`).
ROW_GROUP = 16


def row_products(vectors: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The products of these rows with `query`, each rounded as the product over every row
    (`vectors @ query`) rounds it. OpenBLAS's matrix-vector kernels take rows four at a time and
    the last few (their count mod 4) another way, so a row's float32 product depended on its
    place among the rows scored: one ulp, enough for two rows tied in the full product to swap
    (a query between "type policy" and "two stage learning"). The rows are padded to a multiple
    of ROW_GROUP, so each is in a whole group, as in the full product on one BLAS thread (a
    server's, `vectors.products_on_one_thread`), but for its last rows."""
    padded = np.concatenate([rows, np.full(-len(rows) % ROW_GROUP, rows[-1] if len(rows) else 0, dtype=rows.dtype)])
    return (np.asarray(vectors[padded], dtype=np.float32) @ query)[:len(rows)]


@lru_cache(maxsize=4)
def _open(folder: str) -> PhraseBridge:
    return PhraseBridge(Path(folder))


def phrase_bridge_for(data_dir: str | os.PathLike) -> PhraseBridge | None:
    """The data dir's phrase bridge (reopened when a new generation is published), None when
    the phrase vectors are not built or the encoder package is missing. Opening reads nothing."""
    folder = vector_index.current_generation(data_dir, PHRASES_MODEL)
    if folder is None:
        return None
    from papersift.index.phrasevectors import encoder_available

    return _open(str(folder)) if encoder_available() else None


def warm_up(data_dir: str | os.PathLike) -> None:
    """Open the data dir's phrase bridge and load its encoder (a server calls this at start)."""
    bridge = phrase_bridge_for(data_dir)
    if bridge is not None:
        bridge.warm_up()


def choose(token: str, read: tuple[TermReading, ...], bridge: PhraseBridge,
           lexicon: TermLexicon, maybe: tuple[str, ...] = (),
           back: Callable[[str], Sequence[str]] | None = None) -> TermReading | None:
    """The token's reading when the phrase neighbours read it better than the composition did
    (None: keep the composition's `read`).

    A sure composition (one phrase, every step a dictionary sense as it is) is kept: on
    zhterms half A it was right for 63 of 92 such terms, and letting a neighbour win when it
    scored 0.05-0.2 more lost more right ones than it fixed (MRR@10 0.469 kept, 0.462 at 0.2,
    0.453 at 0.1). A term read in pieces, with less sure senses, or not at all is read as the
    best of its composition's readings and its nearest phrases, scored by cosine to the
    Chinese term plus PAPERS_WEIGHT per log(1 + papers): a frequent phrase is more likely the
    term than a near variant few papers use ("reinforcement learning", not "reinforcement
    learning rl"). Measured (keyword MRR@10, docs/crosslingual.md): half A 0.401 → 0.468, half B
    0.366 → 0.470; taking the nearest phrase alone gave A 0.458, B 0.457; adding a bonus for
    words the dictionary gives the term's parts lost (0.473 → 0.453 at 0.1).

    Papers count up to PAPERS_CAP only, a candidate gains BACK_WEIGHT per share of
    the token its words read back to through the glossary (`back`: an English phrase's Chinese
    forms; `back_read_share`), and a fragment (`is_fragment`) loses FRAGMENT_PENALTY: 核函数
    "kernel function", not "function"; 转移核 "transition kernel", not "nuclear"; 汉明距离
    "hamming distance", not "s distance"."""
    if len(read) == 1 and read[0].english and read[0].sure:
        return None
    neighbours = [n for n in bridge.neighbours(token, NEIGHBOURS) if n.cosine >= MIN_COSINE]
    if not neighbours:
        return None
    composed = " ".join(term.english for term in read if term.english)
    offered = list(dict.fromkeys([composed, *(read[0].alternatives if len(read) == 1 else ()), *maybe]))
    offered = [text for text in offered if text]
    candidates = offered_evidence(token, offered, bridge, lexicon)
    for neighbour in neighbours:
        spelled = lexicon.phrase(neighbour.key)
        if spelled is not None:
            candidates.setdefault(spelled[0], (neighbour.cosine, spelled[1]))
    ranked = sorted(candidates, key=lambda text: -candidate_score(token, text, candidates[text], back))
    best = ranked[0]
    if best == composed:
        return None
    return TermReading(token, best, tuple(ranked[1:ALTERNATIVES + 1]), candidates[best][1], sure=False,
                       confidence=NEIGHBOUR_CONFIDENCE, source="neighbours")


def offered_evidence(token: str, offered: list[str], bridge: PhraseBridge,
                     lexicon: TermLexicon) -> dict[str, tuple[float, int]]:
    """Each offered reading's evidence for the token: spelling -> (cosine to it, papers using it)."""
    keys = [analyzed(text) for text in offered]
    candidates: dict[str, tuple[float, int]] = {}
    for text, key, cosine in zip(offered, keys, candidate_cosines(bridge, token, keys, offered)):
        found = lexicon.phrase(key)
        candidates[text] = (cosine, found[1] if found else 0)
    return candidates


def candidate_score(token: str, text: str, evidence: tuple[float, int],
                    back: Callable[[str], Sequence[str]] | None = None) -> float:
    """How well a candidate reads the token (`choose`): its evidence (`evidence_score`), plus
    BACK_WEIGHT per share of the token it reads back to (`back`, when given), less
    FRAGMENT_PENALTY for a fragment."""
    bonus = BACK_WEIGHT * back_read_share(token, text, back) if back is not None else 0.0
    return evidence_score(evidence) + bonus - FRAGMENT_PENALTY * is_fragment(text)


def back_read_share(token: str, text: str, back: Callable[[str], Sequence[str]]) -> float:
    """The share of the token's characters that the candidate's words read back to: each run of
    its words looked up on the glossary's English side (`back`), the Chinese forms found in the
    token marking their characters."""
    words = text.split()
    spans = [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
    covered: set[int] = set()
    for span in spans:
        for chinese in back(span):
            at = token.find(chinese) if chinese else -1
            while at >= 0:
                covered.update(range(at, at + len(chinese)))
                at = token.find(chinese, at + 1)
    han = [at for run in CJK_RUN.finditer(token) for at in range(run.start(), run.end())]
    return sum(at in covered for at in han) / len(han) if han else 0.0


def is_fragment(text: str) -> bool:
    """A phrase of several words cut out of a longer one: its first or last word a single letter
    or a short sign, no word of its own (the possessive's "s" of "hamming's distance" -> "s
    distance", a variable's "k" of "function k", "$t")."""
    words = text.split()
    return len(words) > 1 and any(len(word) == 1 or (len(word) <= 2 and not word.isalnum())
                                  for word in (words[0], words[-1]))


def evidence_score(evidence: tuple[float, int]) -> float:
    """How well a candidate reads a term: its cosine plus PAPERS_WEIGHT per log(1 + papers), the
    papers counted up to PAPERS_CAP."""
    cosine, papers = evidence
    return cosine + PAPERS_WEIGHT * math.log1p(min(papers, PAPERS_CAP))


def candidate_cosines(bridge: PhraseBridge, text: str, keys: list[str], surfaces: list[str]) -> list[float]:
    """Cosine of `text` to each candidate phrase (its stored row, else encoded now)."""
    if not keys:
        return []
    query = bridge.query_vector(text)
    row_of = bridge.row_of
    missing = [surface for key, surface in zip(keys, surfaces) if key not in row_of]
    encoded = dict(zip(missing, bridge.batch_vectors(tuple(missing)))) if missing else {}
    return [float(bridge.vectors[row_of[key]] @ query) if key in row_of else float(encoded[surface] @ query)
            for key, surface in zip(keys, surfaces)]


def holds_in_place(phrase: str, parts: list[tuple[bool, bool, tuple[str, ...]]]) -> bool:
    """Whether a phrase holds, for each part, one of its English forms: at its start for a part
    that starts the term, at its end for one that ends it, anywhere otherwise; compared as
    analyzed words without spaces ("non-convex learning" holds "nonconvex"). `parts`: (starts
    the term, ends it, the part's English forms)."""
    words = analyzed(phrase).replace(" ", "")
    if not words:
        return False
    for first, last, forms in parts:
        keys = [key for key in (analyzed(form).replace(" ", "") for form in forms) if key]
        if not any(key in words and (not first or words.startswith(key)) and (not last or words.endswith(key))
                   for key in keys):
            return False
    return True


def nearest_holding(token: str, parts: list[tuple[bool, bool, tuple[str, ...]]], bridge: PhraseBridge,
                    lexicon: TermLexicon, back: Callable[[str], Sequence[str]] | None = None) -> list[tuple[str, int]]:
    """The token's nearest phrases (as `choose` scores them) that hold each known part in place
    (`holds_in_place`), best first, as (spelling, papers): 对抗网络, whose 网络 the glossary reads
    "networks", is "adversarial networks", a neighbour holding "networks" at its end."""
    found: dict[str, tuple[float, int]] = {}
    for neighbour in bridge.neighbours(token, NEIGHBOURS):
        spelled = lexicon.phrase(neighbour.key)
        if neighbour.cosine >= MIN_COSINE and spelled is not None and holds_in_place(spelled[0], parts):
            found.setdefault(spelled[0], (candidate_score(token, spelled[0], (neighbour.cosine, spelled[1]), back),
                                          spelled[1]))
    return [(text, found[text][1]) for text in sorted(found, key=lambda text: -found[text][0])]
