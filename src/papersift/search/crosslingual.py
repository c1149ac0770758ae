"""Chinese (CJK) query words carried over to the corpus's English terms for the keyword side.

Each CJK run of the query (text between spaces and punctuation) and each of its jieba words
of two or more characters is embedded as a query and replaced by its nearest English term
in the term bridge (index/bridge.py): "策略梯度定理 函数逼近" gives terms such as "policy
gradient" and "function approximation" that BM25 can match. Whole runs carry phrases that
jieba splits ("分类与回归树" → "regression trees"); words carry what a long run blurs.
A segment that CC-CEDICT knows (search/cedict.py) takes the nearest of its dictionary senses
that are corpus terms ("评论家" → "critic", where the bridge alone said "review"); only a
segment without such a sense takes the nearest of all terms (the bridge still carries the
technical words the dictionary lacks, "非凸学习" → "non-convex learning").
Latin words of the query ("LoRA", "SGD") are kept as they are. Measured on the known-item
dev half (25 Chinese queries, whole corpus): BM25 over the carried-over query alone reached
MRR@10 0.51 with the bridge alone and 0.65 with dictionary senses, against 0.13 for BM25 over
the query as typed and 0.24 for dense search.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable
from typing import Protocol

from papersift.index.analyzers import (
    CJK_RUN,
    ENGLISH,
    cjk_word_spans,
    has_cjk,
    segment_cjk,
    terms,
)
from papersift.index.bridge import TermBridge
from papersift.index.embeddings import Encoder
from papersift.search import cedict, zhnorm
from papersift.search import glossary as bilingual_glossary
from papersift.search.cedict import english_glosses
from papersift.search.compounds import Phrases, compound_spellings, equal_weight, gap_spellings
from papersift.search.phrasebridge import (
    NEIGHBOUR_CONFIDENCE,
    PhraseBridge,
    candidate_score,
    choose,
    holds_in_place,
    nearest_holding,
    offered_evidence,
)
from papersift.search.query import AnyOf, ParsedQuery, Words, merge_filters, natural_text_query
from papersift.search.termlexicon import (
    ALTERNATIVES,
    COMPOSED_SURE_CONFIDENCE,
    MIN_COMPOSED_PAPERS,
    NAME_SOURCE,
    QueryReading,
    TermLexicon,
    TermReading,
    analyzed,
    english_text,
    searched_words,
)
from papersift.search.types import Filters
from papersift.search.zhnames import NAME_CONFIDENCE, spellings

# A query with more Chinese characters than this is a description, not a term: its English
# reading is searched together with the dictionary/bridge carry-over of its words (known-item
# zh dev, keyword MRR@10: the carry-over alone 0.725, the reading alone 0.540, both 0.805;
# zhterms' terms have at most 8 characters but for a few).
DESCRIPTION_CHARS = 8
CJK_CHARACTER = re.compile(CJK_RUN.pattern.rstrip("+"))
MIN_WORD_CHARS = 2  # one-character jieba words (的, 在, 用) carry grammar, not topic
# Without the bridge, a segment keeps the dictionary senses that at least this share as many
# papers use as its most used sense: "遗憾" keeps "regret" and drops "sorry". Known-item zh dev,
# BM25 over the carry-over alone: every sense 0.656, the most used only 0.663, shares
# 0.05 / 0.1 / 0.2 / 0.5 gave 0.674 / 0.716 / 0.723 / 0.687.
SENSE_SHARE = 0.1
MAX_GLOSSARY_CHARS = 16  # the longest glossary term tried at a position
GLOSSARY_CUT_CONFIDENCE = 0.6  # the glossary terms a query is cut at (_reading_terms)
GLOSSARY_MARGIN = 0.1  # glossary entries this close to the surest one count as about as sure
BRIDGE_CONFIDENCE = 0.3  # the term bridge's nearest corpus term: a guess
# A guessed reading is searched as any of itself and this many alternatives (phrase_query), each
# at ALTERNATIVE_WEIGHT: every alternative a reading keeps (termlexicon.ALTERNATIVES, 4). Measured
# with the alternatives at full weight, more of them did not help (zhterms keyword half A, MRR@10,
# one-term queries: the reading alone 0.573, 1 alternative 0.577, 2: 0.577, 4: 0.569), so 1 was
# kept; at 0.6 they do (zhread5, with compound spellings; zh MRR@10 / success@10, keyword and
# hybrid): half A decided, 1: 0.665 / 0.763, 0.686 / 0.795; 2: 0.668 / 0.788, 0.690 / 0.814; 3:
# 0.680 / 0.801, 0.698 / 0.814; 4: 0.678 / 0.808, 0.699 / 0.821 (weight 0.4 / 0.8 with 4: keyword
# 0.671 / 0.672); half B confirmed, 1 -> 4: 0.675 / 0.757 -> 0.691 / 0.785, 0.686 / 0.785 ->
# 0.692 / 0.792.
PHRASE_ALTERNATIVES = 4
# What a guess's alternative phrase adds to a paper's score, times this (phrase_query): the
# reading's papers first, an alternative's papers still found. zhterms keyword zh MRR@10, half A
# decided (1.0 0.637, 0.9 0.641, 0.8 0.642, 0.7 0.641, 0.6 0.645, 0.5 0.643, 0.4 0.634, 0.2 0.630,
# 0.05 0.631; a rarer alternative left out instead 0.644), half B confirmed (0.6: 0.667, against
# 0.639 all at 1.0 and 0.624 rarer left out); docs/crosslingual.md.
ALTERNATIVE_WEIGHT = 0.6
# Glossary pieces joined into one phrase (_pieces_as_one_phrase) take part with their reading and
# this many alternatives less one, at most MAX_SENSE_PHRASES phrase checks in all (a few ms at
# most). zhterms keyword zh half A: 3, 4 and 5 read alike (MRR@10 0.715 each, 0.703 with the
# reading alone).
SENSES_PER_PIECE = 3
MAX_SENSE_PHRASES = 64
DocFreq = Callable[[str], int]  # papers whose text has an (analyzed) term
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


def is_description(text: str) -> bool:
    """Whether a query is a description (more than DESCRIPTION_CHARS Chinese characters), not a term."""
    return len(CJK_CHARACTER.findall(text)) > DESCRIPTION_CHARS


def cjk_segments(text: str) -> list[str]:
    """The query's CJK runs and, for runs of several words, their words of two or more
    characters; each once, in order. A run of one such word and one-character words keeps that
    word too: "图神经网络" (graph + neural network) is no dictionary headword, "神经网络" is."""
    segments: list[str] = []
    for run in CJK_RUN.findall(text):
        segments.append(run)
        words = [word for _, _, word in cjk_word_spans(run)]
        if len(words) > 1:
            segments.extend(word for word in words if len(word) >= MIN_WORD_CHARS)
    return list(dict.fromkeys(segments))


def english_query(text: str, encoder: Encoder | None = None, bridge: TermBridge | None = None,
                  doc_freq: DocFreq | None = None) -> str | None:
    """The query with its CJK segments replaced by English corpus terms (None without CJK).
    Without a term bridge (not built yet, or a Typesense cluster), by the dictionary alone,
    with the senses papers use when `doc_freq` can tell."""
    if not has_cjk(text):
        return None
    segments = cjk_segments(text)
    if bridge is None or encoder is None:
        carried = dictionary_terms(segments, doc_freq)
    else:
        carried = bridge.translate(segments, encoder.encode_queries, senses=english_glosses)
    return " ".join([*_LATIN_WORD.findall(text), *carried]) or None


class TermGlossary(Protocol):
    """What the reading asks of the bilingual glossary (search/glossary.py)."""

    def lookup_zh(self, term: str) -> list: ...  # GlossaryEntry (zh, en, sources, confidence), best first

    def lookup_en(self, phrase: str) -> list: ...  # the entries of an English phrase, best first

    def zh_terms(self) -> frozenset[str]: ...

    def best_confidence(self, term: str) -> float: ...  # of the term's best entry (0 when it has none)

    def __hash__(self) -> int: ...  # the terms a query is cut at are remembered per glossary


class NameReader(Protocol):
    """Chinese name -> (the author spelling papers use, papers), search/zhnames.py."""

    def read(self, name: str) -> tuple[str, int] | None: ...


def read_query(text: str, lexicon: TermLexicon | None, encoder: Encoder | None = None,
               bridge: TermBridge | None = None, doc_freq: DocFreq | None = None,
               phrases: PhraseBridge | None = None, glossary: TermGlossary | None = None,
               names: NameReader | None = None) -> QueryReading | None:
    """The query's English reading (None without CJK), each term with how sure it is.

    The query is read in its simplified, mainland, half-width forms (search/zhnorm.py: 卷積神經網路
    and 卷积神经网络 read alike); when its traditional/Taiwan form converts two ways, the surer
    reading is kept. Each whitespace-free token is read, in this order:

    1. the glossary (`glossary`): its longest terms over the token, left to right
       ("反向传播" → "backpropagation"), sure as the glossary's own confidence;
    2. a Chinese name (`names`): a token nothing above read that is no dictionary word and
       names an author papers have ("何恺明" → "Kaiming He", searched as an author filter);
    3. what is left, by composition over the term lexicon (search/termlexicon.py), then the
       phrase neighbours (search/phrasebridge.py), then the term bridge or the dictionary.

    Without the lexicon (a data dir indexed before it existed), the whole query goes the
    older way (dictionary or term bridge carry-over)."""
    if not has_cjk(text):
        return None
    readings = [_read_form(form, lexicon, encoder, bridge, doc_freq, phrases, glossary, names)
                for form in zhnorm.forms(text)]
    return max(readings, key=reading_confidence)  # the plain simplified form on ties


def reading_confidence(reading: QueryReading) -> float:
    """The mean confidence of a reading's terms (0: nothing read)."""
    return sum(term.confidence for term in reading.terms) / len(reading.terms) if reading.terms else 0.0


def _read_form(text: str, lexicon: TermLexicon | None, encoder: Encoder | None, bridge: TermBridge | None,
               doc_freq: DocFreq | None, phrases: PhraseBridge | None, glossary: TermGlossary | None,
               names: NameReader | None) -> QueryReading:
    if lexicon is None:
        english = english_query(text, encoder, bridge, doc_freq)
        return QueryReading(text, english or "", ())
    terms: list[TermReading] = []
    described: list[str] = []  # the glossary's terms in run-on descriptions: searched beside the reading
    for token in dict.fromkeys(text.split()):
        if not has_cjk(token):
            continue
        if len(CJK_CHARACTER.findall(token)) > DESCRIPTION_CHARS:
            # a run-on description is composed whole, as before the glossary (cut at its terms, the
            # composition lost the phrases across them: known-item zh dev keyword MRR@10 0.793 ->
            # 0.750); the glossary's terms in it are searched beside its reading
            described += [known.english for _, known in glossary_pieces(token, glossary, lexicon) if known]
            terms.extend(_composed(token, lexicon, encoder, bridge, doc_freq, phrases, glossary))
            continue
        pieces = glossary_pieces(token, glossary, lexicon)
        whole = _agreeing_composition(token, pieces, lexicon)
        if whole is not None:
            terms.extend(_weighed_with_unsure_entries(token, [whole], lexicon, phrases, glossary))
            continue
        if any(known is None and len(CJK_CHARACTER.findall(piece)) == 1 for piece, known in pieces):
            # a character the glossary left alone is noise read on its own (弱 of 弱监督学习 reads
            # "good"): the token is read whole, as without the glossary
            pieces = [(token, None)]
        read: list[TermReading] = []
        for piece, known in pieces:
            if known is not None:
                read.append(known)
                continue
            name = _name_reading(piece, token, lexicon, names)
            if name is not None:
                read.append(name)
                continue
            read.extend(_composed(piece, lexicon, encoder, bridge, doc_freq, phrases, glossary))
        read = _phrase_papers_use(token, pieces, read, lexicon, phrases, glossary)
        terms.extend(_weighed_with_unsure_entries(token, read, lexicon, phrases, glossary))
    english = english_text(text, searched_words(terms))
    extra = ""
    if is_description(text):
        extra = english_query(text, encoder, bridge, doc_freq) or ""
    extra = " ".join(word for word in (extra, *dict.fromkeys(described)) if word)
    return QueryReading(text, english, tuple(terms), extra)


@functools.lru_cache(maxsize=4)
def _reading_terms(glossary: TermGlossary) -> frozenset[str]:
    """The glossary's terms a query is cut at: those whose best entry is at least
    GLOSSARY_CUT_CONFIDENCE. Below it are the pairs only a document alignment gives (0.5-0.6,
    index/glossary_build.py), often a fragment around a term ("弱监督" of 弱监督学习, "平滑" of
    过平滑): cutting a query at them breaks the phrase the composition reads whole."""
    return frozenset(term for term in glossary.zh_terms() if glossary.best_confidence(term) >= GLOSSARY_CUT_CONFIDENCE)


def glossary_pieces(token: str, glossary: TermGlossary | None,
                    lexicon: TermLexicon) -> list[tuple[str, TermReading | None]]:
    """The token cut into the glossary's terms (longest first, left to right, over its CJK runs)
    and the stretches between them: (text, its glossary reading) or (text, None) for a stretch
    to read otherwise. Latin words stay with the stretch they are in ("Softmax函数"); a stretch
    of Latin words alone is no piece (the query keeps it as typed)."""
    if glossary is None:
        return [(token, None)]
    known = _reading_terms(glossary)
    pieces: list[tuple[str, TermReading | None]] = []
    rest_from = 0
    at = 0
    while at < len(token):
        match = next((end for end in range(min(len(token), at + MAX_GLOSSARY_CHARS), at + 1, -1)
                      if token[at:end] in known and CJK_RUN.fullmatch(token[at:end])), None)
        if match is None:
            at += 1
            continue
        if rest_from < at:
            pieces.append((token[rest_from:at], None))
        pieces.append((token[at:match], _glossary_reading(token[at:match], glossary, lexicon)))
        at = rest_from = match
    if rest_from < len(token):
        pieces.append((token[rest_from:], None))
    return [(text, reading) for text, reading in pieces if reading is not None or has_cjk(text)]


def _glossary_reading(term: str, glossary: TermGlossary, lexicon: TermLexicon) -> TermReading | None:
    """The glossary's best entry for a term it has; its other entries, spelled as papers spell
    them, are the alternatives (one that is the best one's phrase in other words is not)."""
    entries = glossary.lookup_zh(term)
    if not entries:
        return None
    # the surest entry; of about as sure ones, the phrase most papers use ("backpropagation" in
    # 300 papers, not "back propagation" in 60, for 反向传播), but never a more general term whose
    # words are some of the surest's: more papers use it for being more general (激活函数:
    # "activation function", not "activation")
    used = [lexicon.phrase(analyzed(entry.en)) for entry in entries]
    surest = max(entries, key=lambda entry: entry.confidence)
    words = set(analyzed(surest.en).split())
    best = max(((entry, found) for entry, found in zip(entries, used)
                if entry.confidence >= surest.confidence - GLOSSARY_MARGIN and not set(analyzed(entry.en).split()) < words),
               key=lambda pair: (pair[1][1] if pair[1] else 0, pair[0].confidence))[0]
    best_key = analyzed(best.en)
    papers = lexicon.phrase(best_key)
    others: dict[str, None] = {}
    for entry in entries:
        key = analyzed(entry.en)
        spelled = lexicon.phrase(key) if key != best_key else None
        if spelled is not None:
            others[spelled[0]] = None
    # then what the composition reads the whole term as: phrases papers use, offered as choices
    composed = lexicon.read(term)
    if composed is not None and len(composed.terms) == 1:
        for english in (composed.terms[0].english, *composed.terms[0].alternatives):
            if english and analyzed(english) != best_key:
                others[english] = None
    # spelled as papers spell it most ("backpropagation" for the glossary's "backpropagate": one key)
    return TermReading(term, papers[0] if papers else best.en, tuple(others)[:ALTERNATIVES], papers[1] if papers else 0,
                       sure=True, confidence=float(best.confidence), source="glossary")


def _agreeing_composition(token: str, pieces: list[tuple[str, TermReading | None]],
                          lexicon: TermLexicon) -> TermReading | None:
    """The token read whole by composition, when the glossary knew only part of it and the whole
    phrase holds each glossary term's English words: 弱监督学习 is "weakly supervised learning",
    which holds the glossary's "supervised learning" (弱 alone would read "weak"). As sure as
    the least sure glossary term it agrees with times the share of the token the glossary knew;
    None when the pieces are read separately."""
    known = [reading for _, reading in pieces if reading is not None]
    covered = sum(len(term.chinese) for term in known)
    if not known or len(pieces) == 1:
        return None
    reading = lexicon.read(token)
    if reading is None or len(reading.terms) != 1 or not reading.terms[0].english:
        return None
    composed = reading.terms[0]
    # in place: a glossary term that starts the token starts the phrase, one that ends it ends it
    # (梯度提升 composes "improved gradient", which 梯度 "gradient" does not start)
    if not holds_in_place(composed.english, _parts(token, pieces, lambda known: (known.english,))):
        return None
    # less sure than the glossary's own terms by the share of the token it did not know: 集成学习
    # composes "integrated learning", which holds the glossary's 学习 "learning", but that is
    # half the token (zhterms keyword half A, MRR@10: pieces read apart when the glossary
    # knows half or less 0.503, the whole composition 0.510 with this confidence)
    confidence = min(term.confidence for term in known) * covered / len(token)
    return TermReading(token, composed.english, composed.alternatives, composed.papers, sure=True,
                       confidence=confidence, source="glossary+composition")


def _parts(token: str, pieces: list[tuple[str, TermReading | None]],
           forms: Callable[[TermReading], tuple[str, ...]]) -> list[tuple[bool, bool, tuple[str, ...]]]:
    """The glossary's pieces of a token for `holds_in_place`: (starts the token, ends it, forms)."""
    parts = []
    at = 0
    for text, known in pieces:
        if known is not None:
            parts.append((at == 0, at + len(text) == len(token), forms(known)))
        at += len(text)
    return parts


def _phrase_papers_use(token: str, pieces: list[tuple[str, TermReading | None]], read: list[TermReading],
                       lexicon: TermLexicon, phrases: PhraseBridge | None,
                       glossary: TermGlossary | None) -> list[TermReading]:
    """A token read in pieces (the glossary knew some of its words) whose pieces' words put
    together are no phrase papers use (fewer papers than the lexicon asks of any composed
    phrase) is read as one phrase papers use, when there is one:

    - its whole composition, when that is one sure phrase: 线性规划 is "linear programming" (260
      papers), not the glossary's 线性 + 规划 "linear planning" (no paper); 稀疏编码 "sparse
      coding" (98), not "sparse encoding" (3); as sure as a composition;
    - else its nearest phrase that holds each glossary piece in place (one of the piece's glossary
      entries: phrasebridge.nearest_holding): 对抗网络 "adversarial networks" holds 网络 "networks";
      a guess, as a neighbour is. A token of two terms (图神经网络过平滑) keeps its pieces: no
      one phrase holds both.

    The pieces' reading stays an alternative. Pieces whose words put together in the token's
    order, with the Latin words typed in it, are a phrase papers use are that one phrase, searched
    as it (phrase_query): "Softmax函数" is "softmax function", not "Softmax" beside 函数
    "function"; 状态序列 "state sequence" (15 papers), not "state" and "sequence" apart."""
    if any(term.source == NAME_SOURCE for term in read):
        return read
    merged = _pieces_as_one_phrase(token, read, lexicon)
    if merged is not None:
        return [merged]
    if len(read) < 2:
        return read
    joined = " ".join(term.english for term in read if term.english)
    reading = lexicon.read(token)
    whole = reading.terms[0] if reading is not None and len(reading.terms) == 1 else None
    if whole is not None and whole.english and whole.sure and whole.papers >= MIN_COMPOSED_PAPERS:
        others = tuple(dict.fromkeys(o for o in (joined, *whole.alternatives) if o and o != whole.english))
        return [TermReading(token, whole.english, others[:ALTERNATIVES], whole.papers, sure=True,
                            confidence=COMPOSED_SURE_CONFIDENCE, source="composition")]
    if phrases is None or glossary is None or not any(known for _, known in pieces):
        return _pieces_in_fewest_phrases(token, read, lexicon)

    def forms(known: TermReading) -> tuple[str, ...]:
        return (known.english, *(entry.en for entry in glossary.lookup_zh(known.chinese)))

    found = nearest_holding(token, _parts(token, pieces, forms), phrases, lexicon, _back_reading(glossary))
    if not found:
        return _pieces_in_fewest_phrases(token, read, lexicon)
    best, papers = found[0]
    others = tuple(dict.fromkeys([joined, *(text for text, _ in found[1:])]))
    return [TermReading(token, best, others[:ALTERNATIVES], papers, sure=False,
                        confidence=NEIGHBOUR_CONFIDENCE, source="neighbours")]


def _pieces_as_one_phrase(token: str, read: list[TermReading], lexicon: TermLexicon) -> TermReading | None:
    """The token's reading as one phrase: its pieces' readings and the Latin words typed in it,
    in the token's order, when that is a phrase of at least MIN_COMPOSED_PAPERS papers (the
    lexicon's bar for a composed phrase), spelled as papers spell it; as sure as its least sure
    piece (a Latin word is as typed). None when it is one piece alone, or no such phrase.

    Each piece takes part with its reading and its first alternatives (its other glossary
    entries, then the composition's senses: `_senses_per_piece`): of the phrases their product
    makes, the one that takes the pieces' readings most as they are (the sum of the senses'
    places in their pieces' lists), then the one most papers use. 状态序列 is "state sequence"
    (序列's glossary entries: "sequence-to-sequence", then "sequence"), not the pieces' best
    "state sequence-to-sequence" that no paper writes; 半正定规划 "semi-definite programming"
    (规划: "planning", then "programming"). Ranked by papers alone, a common word's sense wins
    ("conditional sequence"). zhterms keyword zh MRR@10, half A decided 0.703 -> 0.715, half B
    confirmed 0.733 -> 0.737 (docs/crosslingual.md)."""
    spans = _piece_spans(token, read)
    if spans is None or len(spans) < 2 or not read:
        return None
    joined = _joined([senses for _, _, senses in spans], lexicon)
    return _joined_reading(token, read, joined) if joined is not None else None


def _joined_reading(chinese: str, pieces: list[TermReading], joined: tuple[str, int]) -> TermReading:
    """The pieces read as one phrase (spelling, papers), as sure as the least sure piece."""
    least = min(pieces, key=lambda term: term.confidence)
    return TermReading(chinese, joined[0], (), joined[1], sure=all(term.sure for term in pieces),
                       confidence=least.confidence, source=least.source)


def _piece_spans(token: str, read: list[TermReading]) -> list[tuple[int, int, tuple[str, ...]]] | None:
    """Where each piece and each Latin word typed outside them is in the token, with its senses
    (a piece's reading then its alternatives; a Latin word as typed), in order; None when a
    piece is not in place or was read as nothing."""
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    at = 0
    for term in read:
        # the lexicon's pieces leave out what is neither a character nor a Latin word ("状态-动作值")
        found = _spread_in(token, term.chinese, at) if term.chinese and term.english else None
        if found is None:
            return None  # a piece not in place, or one read as nothing: no phrase to join
        at = found[1]
        spans.append((found[0], at, tuple(dict.fromkeys((term.english, *term.alternatives)))))
    # the Latin words typed outside every piece ("Softmax" of "Softmax函数"; a piece's own are read with it)
    spans += [(word.start(), word.end(), (word.group(),)) for word in _LATIN_WORD.finditer(token)
              if not any(start < word.end() and word.start() < end for start, end, _ in spans)]
    return sorted(spans)


def _spread_in(token: str, piece: str, at: int) -> tuple[int, int] | None:
    """(start, end) of the first place from `at` where the token holds the piece's characters in
    order with only non-word characters (\\W) between them, as the regex `c1\\W*c2\\W*...` finds
    it; None when it holds none. Scanned without compiling a pattern a piece (a term's pieces are
    new to the process: compiling was ~0.1 ms a page); a piece holding a non-word character
    itself (one the walk passed over) is matched by the regex."""
    if not all(character.isalnum() or character == "_" for character in piece):  # \w, as re has it
        found = re.compile(r"\W*".join(map(re.escape, piece))).search(token, at)
        return found.span() if found is not None else None
    first = piece[0]
    start = token.find(first, at)
    while start >= 0:
        end = start + 1
        for character in piece[1:]:
            while end < len(token) and not (token[end].isalnum() or token[end] == "_"):
                end += 1  # \\W* between two characters of the piece
            if end == len(token) or token[end] != character:
                break
            end += 1
        else:
            return start, end
        start = token.find(first, start + 1)
    return None


def _joined(pieces: list[tuple[str, ...]], lexicon: TermLexicon) -> tuple[str, int] | None:
    """(spelling, papers) of the phrase of at least MIN_COMPOSED_PAPERS papers that one sense of
    each piece makes in order: fewest places from the pieces' first senses, then most papers."""
    width = _senses_per_piece(len(pieces))
    ordered = [senses[:width] for senses in pieces]
    phrases: dict[str, tuple[int, int]] = {}  # spelling -> (the senses' places summed, papers)
    for places in itertools.product(*(range(len(senses)) for senses in ordered)):
        together = lexicon.phrase(analyzed(" ".join(senses[place] for senses, place in zip(ordered, places))))
        if together is not None and together[1] >= MIN_COMPOSED_PAPERS:
            spelling, papers = together
            cost = min(sum(places), phrases[spelling][0]) if spelling in phrases else sum(places)
            phrases[spelling] = (cost, papers)
    if not phrases:
        return None
    best = min(phrases, key=lambda text: (phrases[text][0], -phrases[text][1]))
    return best, phrases[best][1]


def _pieces_in_fewest_phrases(token: str, read: list[TermReading], lexicon: TermLexicon) -> list[TermReading]:
    """Pieces no one phrase joins, joined into the fewest phrases papers use, each of neighbouring
    pieces (`_joined`), a piece no phrase takes in kept as it is; of as few phrases, those more
    papers use (the lexicon's cover): 边缘似然函数 is "marginal likelihood" (边缘: "edges", then
    "marginal") and "function", not "edges", "likelihood" and "function" apart, nor "edges" and
    "likelihood function". Each joined phrase is as sure as its least sure piece."""
    spans = _piece_spans(token, read)
    if spans is None or len(spans) != len(read) or len(read) < 3:
        return read  # a Latin word among the pieces (kept as typed), or two pieces (no one phrase)
    # best[i]: (phrases, less the summed log papers of each: the lexicon's cover, termlexicon._cover)
    # covering the first i pieces, and their readings
    best: list[tuple[int, float, list[TermReading]] | None] = [(0, 0.0, [])] + [None] * len(read)
    for end in range(1, len(read) + 1):
        for start in range(end):
            reached = best[start]
            if reached is None:
                continue
            if end - start == 1:
                reading = read[start]
            elif end - start < len(read) and (joined := _joined([senses for _, _, senses in spans[start:end]],
                                                                  lexicon)) is not None:
                reading = _joined_reading(token[spans[start][0]:spans[end - 1][1]], read[start:end], joined)
            else:
                continue
            candidate = (reached[0] + 1, reached[1] - math.log1p(reading.papers), [*reached[2], reading])
            current = best[end]
            if current is None or candidate[:2] < current[:2]:
                best[end] = candidate
    found = best[len(read)]
    return found[2] if found is not None else read


def _senses_per_piece(pieces: int) -> int:
    """How many of each piece's senses `_pieces_as_one_phrase` tries: SENSES_PER_PIECE, fewer
    when the product of that many over the pieces would pass MAX_SENSE_PHRASES phrase checks."""
    width = SENSES_PER_PIECE
    while width > 1 and width ** pieces > MAX_SENSE_PHRASES:
        width -= 1
    return width


def _name_reading(piece: str, token: str, lexicon: TermLexicon, names: NameReader | None) -> TermReading | None:
    """A whole token that names an author: no glossary term, no dictionary word, and no phrase
    the composition reads it as whole (和积 is "integrated", not a He Ji; 过平滑 "over-smoothing")."""
    if names is None or piece != token or not CJK_RUN.fullmatch(piece) or lexicon.senses(piece):
        return None
    composed = lexicon.read(piece)
    if composed is not None and len(composed.terms) == 1 and composed.terms[0].english:
        return None
    found = names.read(piece)
    if found is None:
        return None
    return TermReading(piece, found[0], (), found[1], sure=True, confidence=NAME_CONFIDENCE, source=NAME_SOURCE)


def _composed(token: str, lexicon: TermLexicon, encoder: Encoder | None, bridge: TermBridge | None,
              doc_freq: DocFreq | None, phrases: PhraseBridge | None,
              glossary: TermGlossary | None = None) -> list[TermReading]:
    """A token (or a stretch the glossary left) read by composition, phrase neighbours, bridge."""
    reading = lexicon.read(token)
    read = _unread_from_glossary(reading.terms if reading is not None else (), glossary, lexicon)
    # A token longer than a term is a run-on description: its one nearest phrase would stand
    # for all it says (known-item zh dev, keyword MRR@10: 0.785 without phrase vectors, 0.728
    # reading every token, 0.793 only tokens of at most DESCRIPTION_CHARS characters).
    if phrases is not None and len(CJK_CHARACTER.findall(token)) <= DESCRIPTION_CHARS:
        chosen = choose(token, read, phrases, lexicon, _unsure_entries(token, glossary, lexicon),
                        _back_reading(glossary))
        if chosen is not None:
            return [chosen]
    if bridge is not None and (len(read) > 1 or not all(term.english and term.sure for term in read)):
        carried = english_query(token, encoder, bridge, doc_freq) or ""
        composed = " ".join(term.english for term in read if term.english)
        others = (composed, *(other for term in read for other in term.alternatives)) if len(read) == 1 else (composed,)
        return [TermReading(token, carried, tuple(dict.fromkeys(o for o in others if o and o != carried)), sure=False,
                            confidence=BRIDGE_CONFIDENCE, source="bridge")]
    # Without a bridge, what the lexicon cannot read stays unread: every CC-CEDICT headword
    # is in the lexicon, so the dictionary has nothing more to say about it.
    return list(read)


def _unread_from_glossary(read: tuple[TermReading, ...], glossary: TermGlossary | None,
                          lexicon: TermLexicon) -> tuple[TermReading, ...]:
    """The composition's reading with each piece it left unread (its walk out of phrase checks,
    MAX_LOOKUPS, in a long token's first part; a character no phrase starts with) read by the
    glossary where it knows the piece as a sure term, or the sure terms in it: 模型无关的强化学习
    leaves 强化学习 unread once the walk's checks are spent, the glossary reads "reinforcement
    learning"; 核函数 leaves 核 unread, the glossary reads "kernel". A stretch the glossary does
    not know stays unread."""
    if glossary is None or all(term.english for term in read):
        return read
    sure = _reading_terms(glossary)
    filled: list[TermReading] = []
    for term in read:
        if term.english:
            filled.append(term)
        elif term.chinese in sure and (whole := _glossary_reading(term.chinese, glossary, lexicon)) is not None:
            filled.append(whole)
        else:
            filled.extend(piece or TermReading(text, "") for text, piece in glossary_pieces(term.chinese, glossary, lexicon))
    return tuple(filled)


def _weighed_with_unsure_entries(token: str, read: list[TermReading], lexicon: TermLexicon,
                                 phrases: PhraseBridge | None, glossary: TermGlossary | None) -> list[TermReading]:
    """A token the glossary has only below the sure cut, read otherwise than as a sure composition
    (from glossary pieces, a nearest phrase): its reading and those entries weighed on the phrase
    neighbours' evidence (cosine + papers); an entry that wins is the token's reading as a guess,
    with the old reading as its alternative (深度模型: "deep models", not the pieces' "depth
    models"; 梯度截断 "gradient clipping", not "gradient truncated"). A sure composition is kept
    (letting it compete lost: zhterms keyword half A 0.645 -> 0.625). zhterms zh MRR@10 with the
    rebuilt glossary, keyword A 0.650 -> 0.654 (B 0.667 both), hybrid A 0.641 -> 0.647 (B 0.643
    -> 0.648); docs/crosslingual.md."""
    if (phrases is None or glossary is None or not read
            or any(term.source == NAME_SOURCE or not term.english for term in read)
            or (len(read) == 1 and read[0].source == "composition" and read[0].sure)
            or any(entry.confidence >= GLOSSARY_CUT_CONFIDENCE for entry in glossary.lookup_zh(token))):
        return read
    maybe = _unsure_entries(token, glossary, lexicon)
    if not maybe:
        return read
    current = " ".join(term.english for term in read)
    evidence = offered_evidence(token, list(dict.fromkeys((current, *maybe))), phrases, lexicon)
    back = _back_reading(glossary)
    best = max(evidence, key=lambda text: candidate_score(token, text, evidence[text], back))
    if best == current:
        return read
    others = tuple(dict.fromkeys(o for o in (current, *maybe) if o != best))
    return [TermReading(token, best, others[:ALTERNATIVES], evidence[best][1], sure=False,
                        confidence=NEIGHBOUR_CONFIDENCE, source="glossary-maybe")]


def _back_reading(glossary: TermGlossary | None) -> Callable[[str], list[str]] | None:
    """The Chinese forms the glossary gives an English phrase (its en -> zh side, every entry)."""
    if glossary is None:
        return None
    return lambda text: [entry.zh for entry in glossary.lookup_en(text)]


def _unsure_entries(token: str, glossary: TermGlossary | None, lexicon: TermLexicon) -> tuple[str, ...]:
    """The glossary's entries for the whole token below GLOSSARY_CUT_CONFIDENCE, as papers spell
    them (those no paper uses left out): candidates the phrase neighbours weigh (phrasebridge
    choose), never a sure reading (zhterms keyword zh MRR@10, rebuilt glossary: half A 0.647 ->
    0.650, B 0.667 both)."""
    if glossary is None:
        return ()
    found = (lexicon.phrase(analyzed(entry.en)) for entry in glossary.lookup_zh(token)
             if entry.confidence < GLOSSARY_CUT_CONFIDENCE)
    return tuple(dict.fromkeys(spelled[0] for spelled in found if spelled is not None))


def carried_over_query(query: ParsedQuery, english: str, match: str = "any",
                       authors: tuple[str, ...] = ()) -> ParsedQuery:
    """The carried-over English words as a query with the filters and exclusions the user
    typed: ranked by any word by default, or needing all ("all") like an English query. The
    people the query names in Chinese (`authors`, QueryReading.authors) filter as `author:` does."""
    filters = merge_filters(query.filters, Filters(authors=authors)) if authors else query.filters
    return ParsedQuery(natural_text_query(english).required, query.excluded, filters, match=match)


def phrase_query(query: ParsedQuery, reading: QueryReading, phrases: Phrases | None = None,
                 phrase_papers: Callable[[str], int] | None = None,
                 term_papers: Callable[[str], int] | None = None) -> ParsedQuery | None:
    """The reading as the phrases papers write, with the filters and exclusions typed: each
    term's reading as one phrase, and a term whose reading is a guess as its reading or its
    alternatives (PHRASE_ALTERNATIVES), any of them. A Chinese term names one thing, and
    the words of its reading scattered over an abstract do not ("bayesian optimization", not a
    paper on Bayesian networks that optimizes something). None for a description (its reading
    is searched with the words it may say) or a query with words typed in Latin letters beside
    its terms (searched as before). zhterms keyword, MRR@10 (docs/crosslingual.md): half A
    0.550 -> 0.623 (one-term queries, measured offline), half B 0.549 -> 0.638.

    An alternative weighs ALTERNATIVE_WEIGHT of the reading: ranked by BM25 at full weight, a
    rarer alternative's papers would come first by its rarity alone (贝叶斯优化: "bayes optimal"
    papers before "bayesian optimization" ones).

    With the term lexicon's phrase table (`phrases`), each phrase is also searched in the other
    compound spellings papers use (search/compounds.py: "hyper-parameter optimization" and
    "hyperparameter optimization"), weighted to score as the phrase they spell (equal_weight).
    zhterms zh, half A decided / half B confirmed (docs/crosslingual.md): keyword MRR@10 0.654 ->
    0.665 / 0.667 -> 0.674, success@10 0.750 -> 0.763 / 0.736 -> 0.757; hybrid MRR@10 0.647 ->
    0.659 / 0.648 -> 0.652 (spellings at full weight: keyword A 0.659, at 0.6: 0.662).

    `phrase_papers` and `term_papers` (papers with a phrase, with an analyzed term) find the
    reading's spellings with a stop word between its words (compounds.gap_spellings)."""
    terms = [term for term in reading.terms if term.source != NAME_SOURCE]
    # nothing searched but the terms' readings (no Latin word typed beside or inside a term: "Hopfield网络")
    if (reading.extra or not terms or any(not term.english for term in terms)
            or reading.english != " ".join(term.english for term in terms)):
        return None
    nodes = []
    for term in terms:
        others = () if term.shown_sure else term.alternatives[:PHRASE_ALTERNATIVES]
        options = {term.english: 1.0}
        options.update((other, ALTERNATIVE_WEIGHT) for other in others if other not in options)
        if phrases is not None:  # each phrase in the other compound spellings papers use, scored alike
            searched = {analyzed(text) for text in options}
            for text, weight in list(options.items()):
                for spelled in compound_spellings(text, phrases):
                    if analyzed(spelled) not in searched:
                        searched.add(analyzed(spelled))
                        options[spelled] = weight * equal_weight(spelled, text, phrases)
        if phrase_papers is not None:  # the reading as papers write it, a stop word between two words
            for spelled in gap_spellings(term.english, phrase_papers, term_papers):  # ("spike-slab": "spike and slab")
                options.setdefault(spelled, 1.0)
        nodes.append(AnyOf(tuple(Words(text, phrase=True, weight=weight) for text, weight in options.items())))
    filters = merge_filters(query.filters, Filters(authors=reading.authors)) if reading.authors else query.filters
    return ParsedQuery(tuple(nodes), query.excluded, filters, match="all")


def also_searched(phrased: ParsedQuery) -> list[str]:
    """The phrases a phrase_query searches besides its terms' readings (each term's first
    option): their other compound spellings and a guess's alternatives, in order, each once."""
    found: list[str] = []
    for node in phrased.required:
        if isinstance(node, AnyOf):
            found += [option.text for option in node.options[1:] if isinstance(option, Words)]
    return list(dict.fromkeys(found))


def dictionary_terms(segments: list[str], doc_freq: DocFreq | None = None) -> list[str]:
    """The CC-CEDICT senses of each segment the dictionary knows, each once: those papers use
    (see SENSE_SHARE) when `doc_freq` is given, else all of them (known-item zh dev, hybrid
    without the bridge: all senses 0.682, the first sense only 0.657, none 0.361)."""
    found: list[str] = []
    for segment in segments:
        senses = english_glosses(segment)
        found += senses if doc_freq is None else used_senses(senses, doc_freq)
    return list(dict.fromkeys(found))


def used_senses(senses: tuple[str, ...], doc_freq: DocFreq) -> list[str]:
    """The senses used by at least SENSE_SHARE as many papers as the most used one. A sense of
    several words counts the papers of its rarest word (an upper bound of the phrase's)."""
    counted = [(min((doc_freq(term) for term in terms(sense, ENGLISH)), default=0), sense) for sense in senses]
    most = max((papers for papers, _ in counted), default=0)
    return [sense for papers, sense in counted if papers and papers >= SENSE_SHARE * most]


def load_resources() -> None:
    """Load what reading Chinese needs, which otherwise loads on the first Chinese query; a
    server calls this in the background at start: jieba's dictionary and CC-CEDICT (~2 s
    together), the bilingual glossary (both sides: the phrase neighbours read candidates back
    through its English one), OpenCC's converters, the surnames and pypinyin's tables."""
    segment_cjk("预热")
    cedict.glossary()
    bilingual_glossary.zh_terms()
    bilingual_glossary.lookup_en("warm up")
    zhnorm.warm_up()
    spellings("何恺明")  # loads the surnames and pypinyin


def term_glossary() -> TermGlossary:
    """The vendored bilingual glossary (search/glossary.py: its lookup_zh and zh_terms)."""
    return bilingual_glossary
