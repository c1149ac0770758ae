"""HTML-safe highlighting: every character escaped, words matching the query in <mark>.

A word is marked when the index analyzer turns it into one of the query's terms, so
"networks" is marked for the query "network" and stop words never are. To keep this
cheap (it runs on every hit of every page), a literal-prefix regex over the lowercased
text per term finds the words that start like a query term (Snowball stems are prefixes of
their words, but for a final y→i), and only those words are analyzed (once per query). CJK runs are segmented with jieba.
Known gap: a word whose accented spelling differs from the query's ASCII one
("Döring" for "doring") is not marked, though it does match.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

from papersift.index.analyzers import CJK_RUN, ENGLISH, analyzers, cjk_word_spans

MARK_OPEN, MARK_CLOSE = "<mark>", "</mark>"
MARK_START, MARK_END = "\x00", "\x01"


def escape_html(text: str) -> str:
    return escape(text, quote=True)


def _candidate_prefixes(query_terms: frozenset[str]) -> tuple[str, ...]:
    """Lowercase prefixes every word analyzing to a query term starts with (Snowball: y→i)."""
    return tuple(sorted({term.rstrip("i") or term for term in query_terms if not CJK_RUN.search(term)}))


class Highlighter:
    """Marks one query's terms in many texts; remembers each word's verdict."""

    def __init__(self, query_terms: frozenset[str], analyzer_name: str = ENGLISH):
        self.query_terms = query_terms
        prefixes = _candidate_prefixes(query_terms)
        # One regex per prefix: each starts with a literal, which re scans for at C speed.
        self._patterns = [re.compile(re.escape(prefix) + r"[^\W_]*") for prefix in prefixes]
        self._analyze = analyzers()[analyzer_name].analyze
        self._has_cjk_terms = any(CJK_RUN.search(term) for term in query_terms)
        query_terms_set, analyze = self.query_terms, self._analyze
        # Each distinct word is analyzed once per query; the cache lookup runs in C.
        self._matches = lru_cache(maxsize=None)(lambda word: not query_terms_set.isdisjoint(analyze(word)))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the words of `text` that analyze to one of the query's terms."""
        spans = self._word_spans(text) if self._patterns else []
        if self._has_cjk_terms and CJK_RUN.search(text):
            spans.extend((start, end) for start, end, word in cjk_word_spans(text) if word.lower() in self.query_terms)
            spans.sort()
        return spans

    def _word_spans(self, text: str) -> list[tuple[int, int]]:
        lowered = text.lower()
        if len(lowered) != len(text):  # a rare character whose lowercase is longer
            lowered = "".join(char.lower()[0] for char in text)
        matches = self._matches
        spans = []
        for pattern in self._patterns:
            for match in pattern.finditer(lowered):
                start = match.start()
                if (start == 0 or not lowered[start - 1].isalnum()) and matches(match.group()):
                    spans.append(match.span())
        if len(self._patterns) > 1:
            spans.sort()
        return spans

    def __call__(self, text: str | None) -> str:
        if not text:
            return ""
        if not self.query_terms:
            return escape_html(text)
        return mark_spans(text, self.spans(text))


def mark_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Escape `text` and wrap the given character spans in <mark> (overlaps: first wins).

    Sentinels go in first and the whole text is escaped once: far cheaper than
    escaping every piece. Stored text has no control characters (record validation);
    any that slipped in are dropped so they cannot pose as sentinels."""
    if MARK_START in text or MARK_END in text:
        text = text.replace(MARK_START, "").replace(MARK_END, "")
    if not spans:
        return escape_html(text)
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        if start < cursor or end <= start:
            continue
        pieces += (text[cursor:start], MARK_START, text[start:end], MARK_END)
        cursor = end
    pieces.append(text[cursor:])
    return escape_html("".join(pieces)).replace(MARK_START, MARK_OPEN).replace(MARK_END, MARK_CLOSE)
