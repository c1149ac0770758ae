"""The semantic retriever: ranks papers by embedding similarity (dense.py, the SearchService
plug-in of the semantic mode, picks it or the best-vector retriever).

It embeds the query's words (or takes a stored paper's vector, or embeds pasted text) and
searches the vector index. Filters keep full recall: the lexical backend tells how many
papers pass them; a small passing set is searched exactly, a large one is searched with
enough depth that the service's own filtering still leaves `k` results.

The vector index is reopened when `papersift embed` publishes a new generation, so
semantic coverage grows while embeddings are computed; `notices()` says how far it is.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from papersift.config import MAX_ENCODED_QUERY_CHARS, cpu_threads
from papersift.index import vectors as vector_store
from papersift.index.analyzers import ENGLISH, has_cjk, terms
from papersift.index.bridge import TermBridge, terms_model
from papersift.index.embeddings import Encoder, make_encoder, paper_text
from papersift.models import DEFAULT_MODEL, get_spec, query_variant
from papersift.search.crosslingual import is_description
from papersift.search.fusion import STATIC_DENSE_TRUST
from papersift.search.memo import Memo
from papersift.search.notices import Notice
from papersift.search.query import ParsedQuery, query_text
from papersift.search.retrieval import KeywordSide
from papersift.search.similar import UnknownPaperError, embed_like_text, similar_to_paper, similar_to_vector
from papersift.search.stages import stage
from papersift.search.types import SearchRequest
from papersift.store import DB_FILE, Store
from papersift.throttle import Throttle

# The relevance floor: a query's hit below it is no evidence of relevance and is left out of
# semantic results (and of hybrid's, unless it has all the words). Per model and script, the
# lowest best cosine that random strings reach over the corpus's papers (200 of 1-2 "words" of
# 5-10 Latin letters; 100 runs of 2-6 CJK characters; seed 0): a hit that scores under the
# weakest best match any gibberish gets is not shown. (The median of those best matches cut
# short real queries' hits: zhterms semantic zh MRR@10 0.381 -> 0.319 with e5 for half the papers.) Calibrated on the 44,693-paper
# shared corpus with `papersift bench floor --data-dir D` (docs/semantic.md). A model gets a
# floor only when it tells text from gibberish: the paper of 99% or more of 200 sampled titles,
# asked as queries, scores above it (e5: 100%). The static first-pass model does not (its
# gibberish overlaps real one-word queries: `attention` best 0.509, gibberish median 0.427) and has none; for
# every model, a query none of whose words the corpus has gets no dense hits at all.
# all-MiniLM-L6-v2 (the English model of hybrid's English queries, search/hybrid.py) clears the
# same bar (own title 100%); it never ranks a query with CJK words, so its CJK floor is unused.
# Gibberish of 1, 2 or 3 words reaches the same best cosines (bench floor's "by query length"),
# so a floor does not depend on a query's length.
RELEVANCE_FLOORS = {
    "multilingual-e5-small": {"latin": 0.816, "cjk": 0.841},
    "all-MiniLM-L6-v2": {"latin": 0.184, "cjk": 0.173},
}
READING_WEIGHT = 1.0  # the English reading's embedding beside the Chinese query's (query_vector)
# The tokens e5 reads of a description's words (hybrid, _read_description): <s>, the 3 of "query:",
# 44 of the words, </s>. The words are ~60 tokens (40-78 over the known-item dev descriptions) and
# their embedding, ~0.2 ms of CPU a token, is what a fresh page waits for after the reading.
# Known-item zh dev hybrid MRR@10 / R@10 / R@100 by this bound: all the words 0.800 / 0.88 / 1.00,
# 53: 0.800 / 0.88 / 1.00, 49: 0.804 / 0.92 / 1.00, 45: 0.813 / 0.92 / 1.00, 41: 0.807 / 0.92 /
# 0.96, 37: 0.807 / 0.88 / 0.96; 49 keeps a step from where a target leaves the top 100
# (docs/semantic.md, "Chinese hybrid pages: what waits on what").
WORDS_MAX_TOKENS = 49
FILTER_EXACT_MAX = 5000  # filtered sets up to this size are fetched and searched exactly
REOPEN_CHECK_S = 1.0
QUERY_VECTORS_KEPT = 256  # query texts whose vectors are remembered (384 floats each)


@lru_cache(maxsize=4)
def shared_encoder(model: str) -> Encoder:
    """One query encoder per model per process (loading the ONNX session takes about a second), in
    the model's query variant (models/built.py query_variant: e5's per-channel int8 once built)."""
    return make_encoder(model, variant=query_variant(model))


class DenseRetriever:
    def __init__(self, data_dir: str | Path, keyword: KeywordSide, model: str = DEFAULT_MODEL,
                 encoder: Encoder | None = None, floor: float | str | None = "calibrated",
                 quick_descriptions: bool = False):
        self.data_dir = Path(data_dir)
        # hybrid's dense side: a Chinese description read without the bridge (reading_for)
        self.quick_descriptions = quick_descriptions
        # The relevance floor is the model's, calibrated for its own encoder: a retriever given
        # another encoder (a test's stand-in) has none unless it is given one.
        self.floors: dict[str, float] | None = (RELEVANCE_FLOORS.get(model) if encoder is None else None) \
            if floor == "calibrated" else (None if floor is None else {"latin": float(floor), "cjk": float(floor)})
        self.keyword = keyword
        self.model = model
        # `papersift embed` builds a term bridge for a multilingual model only: others have none to look for
        self.bridged = get_spec(model).multilingual
        self._encoder = encoder
        # The live index and its with-abstract row mask (None when every row has one), swapped
        # as one tuple: a reader never pairs a new index with the old one's mask (other lengths).
        self._live: tuple[vector_store.VectorIndex | None, np.ndarray | None] = (None, None)
        self._generation: Path | None = None
        self._bridge: TermBridge | None = None
        self._bridge_generation: Path | None = None
        self._reopen_due = Throttle(REOPEN_CHECK_S)
        self._lock = threading.Lock()
        # Set on a first-pass retriever (search/bestvector.py): rank only the papers this other
        # retriever's index lacks, since a paper is compared in the space of its best vector.
        self.outside: DenseRetriever | None = None
        self._outside_mask: tuple[tuple, np.ndarray | None] = ((), None)
        self._looked = False  # whether a first look for the index has finished
        # One model call per query text (search/memo.py): a page's search, its facet counts
        # and the same query sent by several clients at once share it.
        self._query_vectors: Memo[np.ndarray] = Memo(QUERY_VECTORS_KEPT)
        self._readings: Memo[object] = Memo(QUERY_VECTORS_KEPT)
        # text -> the embeddings its reading started: its own and its words' (or None); a lock of
        # its own (self._lock is held while a new index generation opens)
        self._started: dict[str, tuple[Future, Future | None]] = {}
        self._started_lock = threading.Lock()

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            self._encoder = shared_encoder(self.model)
        return self._encoder

    @property
    def index(self) -> vector_store.VectorIndex | None:
        """The live vector index generation (rechecked at most once a second). Until the first
        look has finished, every caller waits for it: a request arriving while another opens
        the index must not take "no index" for an answer."""
        if self._reopen_due.due() or not self._looked:
            with self._lock:
                generation = vector_store.current_generation(self.data_dir, self.model)
                if generation != self._generation:  # open() retries when a swap removes it meanwhile
                    index = vector_store.VectorIndex.open(self.data_dir, self.model)
                    self._live = (index, self._abstract_mask(index))
                    self._generation = index.folder if index is not None else None
                bridge_generation = (vector_store.current_generation(self.data_dir, terms_model(self.model))
                                     if self.bridged else None)
                if bridge_generation != self._bridge_generation:
                    bridge_index = (vector_store.VectorIndex.open(self.data_dir, terms_model(self.model))
                                    if bridge_generation else None)
                    self._bridge = TermBridge(bridge_index) if bridge_index is not None else None
                    self._bridge_generation = bridge_index.folder if bridge_index is not None else None
                self._looked = True
        return self._live[0]

    @property
    def bridge(self) -> TermBridge | None:
        """The live term bridge (index/bridge.py), None until `papersift embed` has built it."""
        self.index  # noqa: B018 - rechecks both generations
        return self._bridge

    @property
    def dense_trust(self) -> float:
        """How much hybrid fusion trusts this ranking (search/fusion.py): less for a static model."""
        return STATIC_DENSE_TRUST if get_spec(self.model).distilled_from else 1.0

    def query_vector(self, text: str, literal: bool = False) -> np.ndarray:
        """The query's embedding (of its first MAX_ENCODED_QUERY_CHARS characters), computed once
        per text while remembered, in one of the few encoder slots; `literal`: the text alone,
        without a Chinese query's English reading (the page's "search as typed")."""
        text = encoded_query_text(text)
        if literal:
            return self._query_vectors.get((text, "literal"), lambda: encoder_work(self.encoder.encode_query, text))
        return self._query_vectors.get(text, lambda: self._embed_query(text))

    def coverage(self) -> float:
        index = self.index
        return index.meta.coverage if index is not None else 0.0

    def notices(self) -> list[str]:
        index = self.index
        if index is None:
            return [Notice("semantic_not_built")]
        if index.meta.coverage < 0.999:
            return [Notice("semantic_partial", coverage=index.meta.coverage, rows=len(index.row_of),
                           total=index.meta.papers_total)]
        return []

    def _abstract_mask(self, index: vector_store.VectorIndex | None) -> np.ndarray | None:
        """Rows of papers that have an abstract. A title alone is a short, query-like text
        that e5 scores close to any query on its topic: measured on the 44,693-paper dev data
        dir, the 10,768 title-only papers pushed known-item zh targets down (dense MRR@10
        0.02 with them, 0.28 without). They stay findable by keyword and in hybrid mode."""
        if index is None or not (self.data_dir / DB_FILE).exists():
            return None
        store = Store(self.data_dir, readonly=True)
        try:
            title_only = store.ids_without_abstract()
        finally:
            store.close()
        if not title_only:
            return None
        return ~index.mask_for_ids(title_only)

    def _outside_rows(self, index: vector_store.VectorIndex) -> np.ndarray | None:
        """Rows of papers that `outside`'s live index has no vector for (None: no such restriction),
        worked out once per pair of generations."""
        other = self.outside.index if self.outside is not None else None
        if other is None:
            return None
        key = (index.folder, other.folder)
        if self._outside_mask[0] != key:
            self._outside_mask = (key, ~index.mask_for_ids(other.row_of))
        return self._outside_mask[1]

    # -- filters ---------------------------------------------------------------------
    def _filter_plan(self, index: vector_store.VectorIndex, query: ParsedQuery, k: int) -> tuple[np.ndarray | None, int]:
        """(allowed row mask or None, search depth) so that filtering keeps k results."""
        if query.filters.is_empty() and not query.excluded:
            return None, k
        probe = ParsedQuery(excluded=query.excluded, filters=query.filters)
        passing = self.keyword.backend.search(probe, "relevance", 0, 1, with_facets=False).total
        if passing == 0:
            return np.zeros(len(index), dtype=bool), k
        if passing <= FILTER_EXACT_MAX:
            ids = self.keyword.backend.search(probe, "relevance", 0, passing, with_facets=False).paper_ids
            return index.mask_for_ids(ids), k
        share = passing / max(self.keyword.backend.document_count(), 1)
        return None, min(len(index), int(k / share * 1.5) + k)

    # -- ranking ---------------------------------------------------------------------
    def _plan(self, index: vector_store.VectorIndex, query: ParsedQuery, k: int,
              candidate_ids: Sequence[str] | None) -> tuple[np.ndarray | None, int]:
        allowed, depth = self._filter_plan(index, query, k)
        live, with_abstract = self._live
        own = index is live
        masks = [mask for mask in (allowed, with_abstract if own else None, self._outside_rows(index) if own else None)
                 if mask is not None]
        if candidate_ids is not None:  # rank only a pool (evaluation)
            masks.append(index.mask_for_ids(candidate_ids))
        for mask in masks[1:]:
            masks[0] = masks[0] & mask
        return (masks[0] if masks else None), depth

    def rank_text(self, text: str, query: ParsedQuery, k: int,
                  candidate_ids: Sequence[str] | None = None, literal: bool = False,
                  floored: bool = True) -> list[tuple[str, float]]:
        """The papers closest to the query's words, down to the model's relevance floor
        (`floored=False`: the k closest, whatever their score); none when no word of an English
        query is a word of the corpus (the vector of a string the papers never use is noise:
        `qwxzzplk` has nearest papers too)."""
        if not text or not self._known_words(text):
            return []
        ranked = self.nearest(text, query, k, candidate_ids, literal)
        return kept_only(ranked, self.above_floor(text, ranked)) if floored else ranked

    def floor_for(self, text: str) -> float | None:
        """The relevance floor a query's hits are held to (None: this model has none)."""
        return None if self.floors is None else self.floors["cjk" if has_cjk(text) else "latin"]

    def above_floor(self, text: str, ranked: Sequence[tuple[str, float]]) -> set[str] | None:
        """The papers of a ranking of `text` at or above the floor (None: no floor, all of them)."""
        floor = self.floor_for(text)
        return None if floor is None else {paper_id for paper_id, score in ranked if score >= floor}

    def nearest(self, text: str, query: ParsedQuery, k: int,
                candidate_ids: Sequence[str] | None = None, literal: bool = False) -> list[tuple[str, float]]:
        """The k papers closest to the text under the query's filters, whatever their score (no
        floor, no vocabulary check: what the floor is calibrated on, bench/floor.py)."""
        index = self.index
        if index is None:
            return []
        allowed, depth = self._plan(index, query, k, candidate_ids)
        vector = self.query_vector(text, literal)
        with stage("dense"):
            return index.search_ids(vector, depth, allowed)

    def _known_words(self, text: str) -> bool:
        """Whether the corpus has any of the words (always, for CJK text and for a keyword
        engine that cannot count terms)."""
        doc_freq = getattr(self.keyword.backend, "term_doc_freq", None)
        if doc_freq is None or has_cjk(text):
            return True
        words = terms(text, ENGLISH)
        return not words or any(doc_freq(word) > 0 for word in words)

    def _embed_query(self, text: str) -> np.ndarray:
        """The query's embedding; for a Chinese query to the multilingual model, averaged with
        its English reading's (search/termlexicon.py): the small model places a short Chinese
        term loosely ("孪生网络" near "gating network"), the English phrase where papers are."""
        reading = self.reading_for(text) if self.bridged and has_cjk(text) else None
        started = self._started_vectors(text)  # a description's, started by its reading (_read_description)
        if started is not None:
            own, of_words = started
            with stage("encode"):
                chinese = own.result()
                english = of_words.result() if of_words is not None else None
        elif not (words := self._embedded_words(text, reading)) or words == text:
            with stage("encode"):
                return encoder_work(self.encoder.encode_query, text)
        else:
            with stage("encode"):
                chinese, english = encoder_work(self.encoder.encode_queries, [text, words])  # one model call
        if english is None:
            return chinese
        combined = chinese + READING_WEIGHT * english
        return (combined / max(float(np.linalg.norm(combined)), 1e-12)).astype(np.float32)

    def reading_for(self, text: str):
        """The query's English reading (term lexicon; the bridge for what it cannot read),
        remembered per text and bridge generation: one request reads it once. Of the text the
        encoder reads (encoded_query_text): the bridge encodes phrases of it.

        With `quick_descriptions` (hybrid's dense side), a description (crosslingual.is_description:
        a sentence, a list of terms) is read by the lexicon and the dictionary senses papers use,
        without the bridge and the phrase neighbours, and the page's keyword side searches that
        reading too (service.py _ranked_reading). The bridge's e5 look-ups (each of the
        description's words embedded, then compared with the 60,000 bridge terms) and the
        neighbours of each of its terms (USE-m3 encodings, products with 126,090 phrase vectors)
        were most of a Chinese hybrid page's time; without them known-item zh dev hybrid MRR@10
        went 0.757 -> 0.795 (docs/semantic.md, "Chinese hybrid pages"). Semantic mode, which
        ranks by the embedding alone, keeps the bridge's words: its dense vector lost (0.545 ->
        0.498) with the dictionary's."""
        text = encoded_query_text(text)
        if self.quick_descriptions and is_description(text):
            return self._readings.get((text, "description"), lambda: self._read_description(text))
        bridge = self.bridge
        key = (text, str(bridge.folder) if bridge is not None else None)
        return self._readings.get(key, lambda: self.keyword.reading_of(
            text, self.encoder if bridge is not None else None, bridge))

    def _read_description(self, text: str):
        """A description's reading (reading_for), with its embeddings started on the encoder
        thread: the text's own before it is read, its words' as soon as it is. The
        reading is Python and the encoder runs outside the GIL, so on two cores the reading
        hides most of the first and the keyword side's searches (hybrid.py signals) the second;
        _embed_query takes both."""
        if not self.bridged:
            return self.keyword.reading_of(text, neighbours=False)
        own = started_query_encoding(self.encoder, text)
        reading = self.keyword.reading_of(text, neighbours=False)
        words = self._embedded_words(text, reading)
        english = started_query_encoding(self.encoder, words, WORDS_MAX_TOKENS) if words else None
        with self._started_lock:
            if len(self._started) >= QUERY_VECTORS_KEPT:  # embeddings never asked for (no index yet)
                self._started.clear()
            self._started[text] = (own, english)
        return reading

    def _embedded_words(self, text: str, reading) -> str:
        """What of a Chinese query's reading is embedded beside it: its English, or for hybrid's
        description all the words searched (the composition and the dictionary senses of its
        words: known-item zh dev hybrid MRR@10 0.795, R@100 1.0; the composition alone 0.792,
        R@100 0.92)."""
        if reading is None:
            return ""
        return reading.searched if self.quick_descriptions and is_description(text) else reading.english

    def _started_vectors(self, text: str) -> tuple[Future, Future | None] | None:
        """The embeddings reading the text started (its own, its words' or None), taken:
        used once; None when its reading started none."""
        with self._started_lock:
            return self._started.pop(text, None)

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ranking of the request's result set: its papers above the relevance floor."""
        return kept_only(*self.ranked_and_kept(request, query, k, candidate_ids))

    def ranked_and_kept(self, request: SearchRequest, query: ParsedQuery, k: int,
                        candidate_ids: Sequence[str] | None = None) -> tuple[list[tuple[str, float]], set[str] | None]:
        """The k best papers whatever their scores, and those of them above the relevance floor
        (None: all). The floor says which papers belong to the result set; it does not cut the
        list that fusion (hybrid.py) and the merge with the first pass (bestvector.py)
        standardise scores over: a list cut short at the floor has other z-scores, which moved
        real hits down (zhterms semantic zh 0.426 -> 0.405 with e5 for 96% of the papers)."""
        if request.like_id or request.like_text:
            return self._similar(request, query, k, candidate_ids), None
        text = query_text(query)
        ranked = self.rank_text(text, query, k, candidate_ids, literal=request.literal, floored=False)
        return ranked, self.above_floor(text, ranked)

    def _similar(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Similar papers: a stored paper's neighbours, or pasted text's (no floor: the page asked for them)."""
        index = self.index
        if index is None:
            return []
        if request.like_id:
            allowed, depth = self._plan(index, query, k, candidate_ids)
            try:
                return similar_to_paper(index, request.like_id, depth, allowed)
            except UnknownPaperError:
                paper = self.keyword.get(request.like_id)
                if paper is None:
                    raise
                return similar_to_vector(index, encoder_work(embed_like_text, self.encoder, paper_text(paper)), depth,
                                         allowed, exclude=[paper.id])
        allowed, depth = self._plan(index, query, k, candidate_ids)
        return index.search_ids(encoder_work(embed_like_text, self.encoder, request.like_text or ""), depth, allowed)


def kept_only(ranked: list[tuple[str, float]], kept: set[str] | None) -> list[tuple[str, float]]:
    """A ranking without the papers that are not kept (`kept` None: all are)."""
    return ranked if kept is None else [(paper_id, score) for paper_id, score in ranked if paper_id in kept]


# Query encoding runs in a few slots (half the cores, at least one): five long semantic queries
# at once wait for a slot instead of taking every core, and keyword requests, which never encode,
# never wait for them (docs/reliability-search.md).
ENCODER_SLOTS = threading.BoundedSemaphore(max(1, cpu_threads() // 2))
# Where a description's own embedding runs while the request's thread reads it (_read_description).
QUERY_ENCODER_THREADS = ThreadPoolExecutor(max(1, cpu_threads() // 2), thread_name_prefix="query-encoder")
# The longest a request waits for the encoder thread to begin a text (started_query_encoding): the
# interpreter's switch interval, the most that not waiting could cost.
HANDOFF_WAIT_S = 0.005


def encoder_work(work, *args):
    """`work(*args)` in an encoder slot (waiting for one)."""
    with ENCODER_SLOTS:
        return work(*args)


def started_query_encoding(encoder: Encoder, text: str, max_tokens: int | None = None) -> Future:
    """`encoder.encode_query(text)` on the encoder thread (in an encoder slot), returned once the
    model runs, or after HANDOFF_WAIT_S while the slot is taken (another request's encoding).
    `max_tokens`: the model reads at most this many of the text's tokens (its end token kept).

    The wait is what lets the two overlap. A thread busy with Python code hands the interpreter's
    lock to another only at the switch interval (5 ms), and the encoder thread needs the lock to
    begin (the tokenizer lets go of it and must take it back before the model runs): submitted and
    left, a description's words began to be embedded only once the request thread blocked on them,
    after the keyword searches they were meant to hide under (submission to the model's start,
    beside 8 ms of Python: median 8.2 ms; with this wait 0.6 ms, docs/semantic.md). Waiting costs
    the request thread the tokenization (~0.05 ms); the model runs outside the lock."""
    running = threading.Event()

    def work() -> np.ndarray:
        with ENCODER_SLOTS:
            ids = encoder.tokenize([encoder.query_input(text)])
            if max_tokens is not None and len(ids[0]) > max_tokens:
                ids = [[*ids[0][:max_tokens - 1], ids[0][-1]]]
            running.set()
            return encoder.encode_token_ids(ids)[0]
    future = QUERY_ENCODER_THREADS.submit(work)
    running.wait(HANDOFF_WAIT_S)
    return future


def encoded_query_text(text: str) -> str:
    """What the encoder reads of a query: all of it up to MAX_ENCODED_QUERY_CHARS characters,
    else that many, cut at the last space of the final fifth when there is one."""
    if len(text) <= MAX_ENCODED_QUERY_CHARS:
        return text
    cut = text[:MAX_ENCODED_QUERY_CHARS]
    space = cut.rfind(" ")
    return cut[:space] if space >= MAX_ENCODED_QUERY_CHARS * 4 // 5 else cut

