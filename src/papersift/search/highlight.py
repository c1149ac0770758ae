"""HTML-safe highlighting: every character escaped, words matching the query in <mark>.

A word is marked when the index analyzer turns it into one of the query's terms, so
"networks" is marked for the query "network" and stop words never are. To keep this
cheap (it runs on every hit of every page), a compiled regex first finds the words
that start like a query term (Snowball stems are prefixes of their words, but for a
final y→i), and only those words are analyzed. CJK runs are segmented with jieba.
Known gap: a word whose accented spelling differs from the query's ASCII one
("Döring" for "doring") is not marked, though it does match.
"""

from __future__ import annotations

import re
from html import escape

from papersift.index.analyzers import CJK_RUN, ENGLISH, analyzers, cjk_word_spans

MARK_OPEN, MARK_CLOSE = "<mark>", "</mark>"


def escape_html(text: str) -> str:
    return escape(text, quote=True)


WORD_REST = re.compile(r"[^\W_]*")


def _candidate_prefixes(query_terms: frozenset[str]) -> tuple[str, ...]:
    """Lowercase prefixes every word analyzing to a query term starts with (Snowball: y→i)."""
    return tuple(sorted({term.rstrip("i") or term for term in query_terms if not CJK_RUN.search(term)}))


class Highlighter:
    """Marks one query's terms in many texts; remembers each word's verdict."""

    def __init__(self, query_terms: frozenset[str], analyzer_name: str = ENGLISH):
        self.query_terms = query_terms
        self._prefixes = _candidate_prefixes(query_terms)
        self._analyze = analyzers()[analyzer_name].analyze
        self._has_cjk_terms = any(CJK_RUN.search(term) for term in query_terms)
        self._verdicts: dict[str, bool] = {}

    def _matches(self, word: str) -> bool:
        verdict = self._verdicts.get(word)
        if verdict is None:
            verdict = not self.query_terms.isdisjoint(self._analyze(word))
            self._verdicts[word] = verdict
        return verdict

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the words of `text` that analyze to one of the query's terms."""
        spans = self._word_spans(text) if self._prefixes else []
        if self._has_cjk_terms and CJK_RUN.search(text):
            spans.extend((start, end) for start, end, word in cjk_word_spans(text) if word.lower() in self.query_terms)
            spans.sort()
        return spans

    def _word_spans(self, text: str) -> list[tuple[int, int]]:
        # str.find on the lowercased text is far faster than a regex alternation.
        lowered = text.lower()
        if len(lowered) != len(text):  # a rare character whose lowercase is longer
            lowered = "".join(char.lower()[0] for char in text)
        spans = []
        for prefix in self._prefixes:
            start = lowered.find(prefix)
            while start >= 0:
                if start == 0 or not lowered[start - 1].isalnum():
                    end = WORD_REST.match(lowered, start + len(prefix)).end()
                    if self._matches(lowered[start:end]):
                        spans.append((start, end))
                    start = end
                else:
                    start += len(prefix)
                start = lowered.find(prefix, start)
        spans.sort()
        return spans

    def __call__(self, text: str | None) -> str:
        if not text:
            return ""
        if not self.query_terms:
            return escape_html(text)
        return mark_spans(text, self.spans(text))


def mark_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Escape `text` and wrap the given character spans in <mark> (overlaps: first wins)."""
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        if start < cursor or end <= start:
            continue
        pieces.append(escape_html(text[cursor:start]))
        pieces.append(MARK_OPEN + escape_html(text[start:end]) + MARK_CLOSE)
        cursor = end
    pieces.append(escape_html(text[cursor:]))
    return "".join(pieces)
