"""Text analysis shared by indexing and querying, so both sides produce the same terms.

English text: tantivy's simple tokenizer (runs of letters/digits), lowercase, ASCII
folding ("Döring" = "doring"), English stop words, Snowball English stemmer.
CJK text: tantivy has no Chinese segmenter, so CJK runs are segmented with jieba in
Python and the words are joined with spaces before tantivy sees the text; the same
segmentation is applied to queries. Text without CJK characters skips jieba entirely
(and jieba's dictionary is loaded only the first time CJK text shows up). jieba here is
rjieba, the Python binding of jieba-rs (jieba's dictionary and algorithm in Rust): on the
404 CJK runs of the zhterms and known-item dev queries it segments exactly as jieba 0.42.1
did, loads in 0.6 s instead of 3.6 s and cuts ~30× faster (2026-12-01, docs/crosslingual.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import tantivy

ENGLISH = "papersift_en"  # words: stemmed, stop words removed
NAMES = "papersift_names"  # author names: folded, not stemmed
EXACT = "papersift_exact"  # whole value, lowercased: venue, area, status filters
MAX_TOKEN_CHARS = 40

CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")


def english_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(MAX_TOKEN_CHARS))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def names_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def exact_analyzer() -> tantivy.TextAnalyzer:
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).filter(tantivy.Filter.lowercase()).build()


@lru_cache(maxsize=1)
def analyzers() -> dict[str, tantivy.TextAnalyzer]:
    return {ENGLISH: english_analyzer(), NAMES: names_analyzer(), EXACT: exact_analyzer()}


def register(index: tantivy.Index) -> None:
    """Every Index object (new or opened) must know the analyzers its schema names."""
    for name, analyzer in analyzers().items():
        index.register_tokenizer(name, analyzer)
    index.register_fast_field_tokenizer(EXACT, analyzers()[EXACT])


def has_cjk(text: str) -> bool:
    # isascii() runs at C speed and settles most texts; the regex scan costs ~25 µs per abstract.
    return not text.isascii() and CJK_RUN.search(text) is not None


@lru_cache(maxsize=1)
def _jieba():
    import rjieba  # its dictionary loads on import

    return rjieba


def segment_cjk(text: str) -> str:
    """Put spaces between the Chinese words of `text`; other text comes back unchanged."""
    if not has_cjk(text):
        return text
    jieba = _jieba()
    return CJK_RUN.sub(lambda run: f" {' '.join(jieba.cut(run.group(0)))} ", text)


def cjk_word_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word) character spans of jieba's words in the CJK runs of `text`."""
    jieba = _jieba()
    spans = []
    for run in CJK_RUN.finditer(text):
        for word, start, end in jieba.tokenize(run.group(0)):
            spans.append((run.start() + start, run.start() + end, word))
    return spans


def terms(text: str, analyzer_name: str = ENGLISH) -> list[str]:
    """The index terms of `text` (CJK segmented first), in order, duplicates kept."""
    return analyzers()[analyzer_name].analyze(segment_cjk(text))


QUERY_WORDS_KEPT = 16384  # query words whose terms are remembered (~100 bytes each)


@lru_cache(maxsize=QUERY_WORDS_KEPT)
def query_word_terms(text: str, analyzer_name: str = ENGLISH) -> tuple[str, ...]:
    """terms() of a query's word or phrase, remembered (analysis is pure): a page analyzes
    each of its words several times (the query, its relaxed form, its highlights)."""
    return tuple(terms(text, analyzer_name))


@dataclass(frozen=True, slots=True)
class Token:
    """An analyzed token: its term, its position among the text's words (stop words keep
    their place, so a phrase matches what was indexed), and its character span."""

    text: str
    position: int
    start: int
    end: int


# What tantivy's simple tokenizer keeps: runs of alphanumeric characters (Rust's
# char::is_alphanumeric; Python's [^\W_] differs on Indic vowel signs and enclosed letters, see the tests).
_SIMPLE_TOKEN = re.compile(r"[^\W_]+")
HAS_PRE_TOKENIZE = hasattr(tantivy.TextAnalyzer, "pre_tokenize")  # tantivy 0.27+ (decided once, not per query word)


def tokens(text: str, analyzer_name: str = ENGLISH) -> list[Token]:
    """The analyzed tokens of `text` (no CJK segmentation: callers segment first when needed).

    tantivy 0.27's `TextAnalyzer.pre_tokenize` gives them directly. tantivy 0.27 has no wheel
    for Python 3.10, and 0.26 lacks `pre_tokenize`: there each word the simple tokenizer would
    cut is analyzed on its own, which yields the same tokens (the filters work word by word)."""
    analyzer = analyzers()[analyzer_name]
    if HAS_PRE_TOKENIZE:
        return [Token(token.text, token.position, token.char_offset_from, token.char_offset_to)
                for token in analyzer.pre_tokenize(text).tokens]
    return _tokens_word_by_word(analyzer, text)


def _tokens_word_by_word(analyzer: tantivy.TextAnalyzer, text: str) -> list[Token]:
    found: list[Token] = []
    for position, word in enumerate(_SIMPLE_TOKEN.finditer(text)):
        found.extend(Token(term, position, word.start(), word.end()) for term in analyzer.analyze(word.group()))
    return found


def positioned_terms(text: str, analyzer_name: str = ENGLISH) -> list[tuple[int, str]]:
    """(position, term) pairs; stop-word gaps are kept so phrases match what was indexed."""
    return [(token.position, token.text) for token in tokens(segment_cjk(text), analyzer_name)]
