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

import re
from collections.abc import Callable

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
from papersift.search.cedict import english_glosses, glossary
from papersift.search.phrasebridge import PhraseBridge, choose
from papersift.search.query import ParsedQuery, natural_text_query
from papersift.search.termlexicon import (
    QueryReading,
    TermLexicon,
    TermReading,
    english_text,
)

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
DocFreq = Callable[[str], int]  # papers whose text has an (analyzed) term
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


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


def read_query(text: str, lexicon: TermLexicon | None, encoder: Encoder | None = None,
               bridge: TermBridge | None = None, doc_freq: DocFreq | None = None,
               phrases: PhraseBridge | None = None) -> QueryReading | None:
    """The query's English reading (None without CJK). With the term lexicon, each Chinese term
    is read as the phrase papers use (search/termlexicon.py). What it cannot read goes the older
    way: through the term bridge when there is one, else by the dictionary's senses papers use.
    With a bridge, a term the lexicon read only in pieces or with less sure senses is read by
    the bridge as a whole (its own reading stays as an alternative): "强化学习" composes
    nothing better than "strengthening learning", the bridge knows "reinforcement learning".
    With the phrase vectors (`phrases`, search/phrasebridge.py), a term the composition is unsure
    of is first offered to its nearest corpus phrases ("迁移学习": "transfer learning", where
    the composition says "learning moves").
    Without the lexicon (a data dir indexed before it existed), the whole query goes the older way."""
    if not has_cjk(text):
        return None
    if lexicon is None:
        english = english_query(text, encoder, bridge, doc_freq)
        return QueryReading(text, english or "", ())
    terms: list[TermReading] = []
    for token in dict.fromkeys(text.split()):
        if not has_cjk(token):
            continue
        reading = lexicon.read(token)  # not None: the token has CJK
        read = reading.terms if reading is not None else ()
        # A token longer than a term is a run-on description: its one nearest phrase would stand
        # for all it says (known-item zh dev, keyword MRR@10: 0.785 without phrase vectors, 0.728
        # reading every token, 0.793 only tokens of at most DESCRIPTION_CHARS characters).
        if phrases is not None and len(CJK_CHARACTER.findall(token)) <= DESCRIPTION_CHARS:
            chosen = choose(token, read, phrases, lexicon)
            if chosen is not None:
                terms.append(chosen)
                continue
        if bridge is not None and (len(read) > 1 or not all(term.english and term.sure for term in read)):
            carried = english_query(token, encoder, bridge, doc_freq) or ""
            composed = " ".join(term.english for term in read if term.english)
            others = (composed, *(other for term in read for other in term.alternatives)) if len(read) == 1 else (composed,)
            terms.append(TermReading(token, carried, tuple(dict.fromkeys(o for o in others if o and o != carried)), sure=False))
            continue
        # Without a bridge, what the lexicon cannot read stays unread: every CC-CEDICT headword
        # is in the lexicon, so the dictionary has nothing more to say about it.
        terms.extend(read)
    english = english_text(text, {term.chinese: term.english for term in terms})
    extra = ""
    if len(CJK_CHARACTER.findall(text)) > DESCRIPTION_CHARS:
        extra = english_query(text, encoder, bridge, doc_freq) or ""
    return QueryReading(text, english, tuple(terms), extra)


def carried_over_query(query: ParsedQuery, english: str, match: str = "any") -> ParsedQuery:
    """The carried-over English words as a query with the filters and exclusions the user
    typed: ranked by any word by default, or needing all ("all") like an English query."""
    return ParsedQuery(natural_text_query(english).required, query.excluded, query.filters, match=match)


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
    """Load jieba's dictionary and CC-CEDICT (~2 s together), which otherwise load on the
    first Chinese query; a server calls this in the background at start."""
    segment_cjk("预热")
    glossary()
