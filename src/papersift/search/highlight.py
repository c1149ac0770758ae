"""HTML-safe highlighting: every character escaped, words matching the query in <mark>.

A word is marked when the index analyzer turns it into one of the query's terms, so
"networks" is marked for the query "network" and stop words never are. To keep this
cheap (it runs on every hit of every page), a page's texts are joined and escaped
first, then searched with one literal-prefix regex per query term over a lowercased
copy, which finds the words that start like a query term (Snowball stems are prefixes
of their words, but for a final y→i); only those words are analyzed (once per query),
and the marks go straight into the escaped text. re's scan for a literal stops at each
occurrence of its first letter, so each prefix is looked for from its rarest letter on
("network" from its "k": `_ANCHOR_ORDER`), the letters before it checked behind. Escaping
only turns & < > " ' into entities, so no word changes; a match inside an entity (the "amp"
of "&amp;") is skipped. CJK runs are segmented with jieba. Known gap: a word whose accented spelling
differs from the query's ASCII one ("Döring" for "doring") is not marked, though it does match.
"""

from __future__ import annotations

import re
from functools import lru_cache

from papersift.index.analyzers import CJK_RUN, ENGLISH, analyzers, cjk_word_spans

MARK_OPEN, MARK_CLOSE = "<mark>", "</mark>"
MARK_START, MARK_END = "\x00", "\x01"


_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#x27;"))  # html.escape's, in its order


def escape_html(text: str) -> str:
    """html.escape(text, quote=True), each character replaced only when the text has it:
    str.replace counts its character in a plain loop before it replaces, `in` finds it with
    memchr, and a page's text has no "<", ">" or "&" mostly (0.026 -> 0.010 ms a page)."""
    for char, entity in _ENTITIES:
        if char in text:
            text = text.replace(char, entity)
    return text


def _candidate_prefixes(query_terms: frozenset[str]) -> tuple[str, ...]:
    """Lowercase prefixes every word analyzing to a query term starts with (Snowball: y→i).
    A prefix that starts with another one is left out: the shorter one's scan finds its words."""
    prefixes = sorted({term.rstrip("i") or term for term in query_terms if not CJK_RUN.search(term)})
    kept: list[str] = []
    for prefix in prefixes:  # sorted: a prefix comes right before the words it starts
        if not kept or not prefix.startswith(kept[-1]):
            kept.append(prefix)
    return tuple(kept)


# Lowercase English letters, most frequent first (the usual letter-frequency order of English
# text). re finds a pattern's leading literal by stopping at each occurrence of its first
# character, and a page's ~18,500 characters hold ~660 "l" but ~80 "k": a prefix is looked for
# from the letter of it that comes last here (other characters, digits and non-ASCII letters,
# count as rarer still).
_ANCHOR_ORDER = {letter: rank for rank, letter in enumerate("etaoinshrdlcumwfgypbvkjxqz")}


@lru_cache(maxsize=4096)
def _scans(query_terms: frozenset[str]) -> tuple[list[tuple[re.Pattern, str]], bool]:
    """A term set's scans (one per candidate prefix: _word_start_pattern) and whether it has
    CJK terms."""
    return ([_word_start_pattern(prefix) for prefix in _candidate_prefixes(query_terms)],
            any(CJK_RUN.search(term) for term in query_terms))


def _anchor(prefix: str) -> int:
    """Where in the prefix its rarest letter is (the first of equals): a scan starts there."""
    rarest = max(_ANCHOR_ORDER.get(char, len(_ANCHOR_ORDER)) for char in prefix)
    return next(at for at, char in enumerate(prefix) if _ANCHOR_ORDER.get(char, len(_ANCHOR_ORDER)) == rarest)


@lru_cache(maxsize=4096)
def _word_start_pattern(prefix: str) -> tuple[re.Pattern, str]:
    """(pattern, head): the words of an escaped, lowercased text that start with `prefix`,
    each matched from its anchor on (_anchor: the match is the word less `head`, the letters
    before the anchor).

    It starts with the literal from the anchor, which re scans for at C speed; the lookbehinds
    come after it (so the scan stays fast): the head before it, and only word starts that are
    not an entity's name ("&amp;", "&#x27;"): not after a letter or digit, "&" or "&#"."""
    head = prefix[:_anchor(prefix)]
    chars = "." * len(prefix)
    before = f"(?<={re.escape(prefix)})" if head else ""
    return (re.compile(f"{re.escape(prefix[len(head):])}{before}(?<![^\\W_]{chars})(?<!&{chars})(?<!&#{chars})"
                       "[^\\W_]*"), head)


@lru_cache(maxsize=65536)
def _word_terms(word: str, analyzer_name: str) -> tuple[str, ...]:
    """A text word's index terms (analysis is pure): the words pages mark recur from query to query."""
    return tuple(analyzers()[analyzer_name].analyze(word))


def _drop_sentinels(text: str) -> str:
    """Stored text has no control characters (record validation); any that slipped in are
    dropped, as mark_spans drops them, so every path gives the same output."""
    if MARK_START in text or MARK_END in text:
        return text.replace(MARK_START, "").replace(MARK_END, "")
    return text


class Highlighter:
    """Marks one query's terms in many texts; remembers each word's verdict."""

    def __init__(self, query_terms: frozenset[str], analyzer_name: str = ENGLISH):
        self.query_terms = query_terms
        self._patterns, self._has_cjk_terms = _scans(query_terms)
        self._analyzer_name = analyzer_name
        self._verdicts: dict[str, bool] = {}  # word -> marked (each distinct word judged once a query)
        self._tails: dict[str, dict[str, bool]] = {}  # head -> the same, by word less head (_word_start_pattern)

    def __call__(self, text: str | None) -> str:
        if not text:
            return ""
        if not self.query_terms:
            return escape_html(text)
        return self._mark_joined([_drop_sentinels(text)])[0]

    def mark_many(self, given: list[str | None]) -> list[str]:
        """Each text HTML-escaped with the query's words marked (empty for a missing text).

        The texts are joined (MARK_START between them, which no stored text has) and go
        through escaping, the scans and the marking as one string: a page's titles and
        abstracts cost a few calls instead of a few per text. ASCII texts are joined apart
        from the others: a string with one wider character is scanned about half as fast."""
        texts = [text or "" for text in given]
        if not texts or not self.query_terms:
            return [escape_html(text) for text in texts]
        whole = "".join(texts)  # one memchr for each sentinel, one ASCII check, instead of one a text
        if MARK_START in whole or MARK_END in whole:
            texts = [_drop_sentinels(text) for text in texts]
        if whole.isascii():
            return self._mark_joined(texts)
        is_ascii = list(map(str.isascii, texts))
        ascii_at = [at for at, flag in enumerate(is_ascii) if flag]
        if not ascii_at:
            return self._mark_joined(texts)
        other_at = [at for at, flag in enumerate(is_ascii) if not flag]
        for positions in (ascii_at, other_at):
            for at, marked in zip(positions, self._mark_joined([texts[at] for at in positions])):
                texts[at] = marked
        return texts

    def _mark_joined(self, texts: list[str]) -> list[str]:
        escaped = escape_html(MARK_START.join(texts))
        return _mark_escaped(escaped, self.spans(escaped)).split(MARK_START)

    def spans(self, escaped: str) -> list[tuple[int, int]]:
        """Character spans, in an HTML-escaped text, of the words that analyze to one of
        the query's terms, in order (they may overlap: a CJK word inside a marked word)."""
        spans = self._word_spans(escaped) if self._patterns else []
        if self._has_cjk_terms and CJK_RUN.search(escaped):
            query_terms = self.query_terms
            spans.extend((start, end) for start, end, word in cjk_word_spans(escaped) if word.lower() in query_terms)
            spans.sort()
        return spans

    def _word_spans(self, escaped: str) -> list[tuple[int, int]]:
        lowered = _lower_in_place(escaped)
        spans = []
        for pattern, head in self._patterns:
            if not head:  # the scan starts at the word's start
                verdict = self._verdicts.get
                for match in pattern.finditer(lowered):
                    marked = verdict(match[0])
                    if marked is None:
                        marked = self._judge(match[0])
                    if marked:
                        spans.append(match.span())
                continue
            back = len(head)
            tails = self._tails.setdefault(head, {})  # the word less its head -> marked
            for match in pattern.finditer(lowered):
                marked = tails.get(match[0])
                if marked is None:
                    marked = tails[match[0]] = self._judge(head + match[0])
                if marked:
                    spans.append((match.start() - back, match.end()))
        if len(self._patterns) > 1:
            spans.sort()
        return spans

    def _judge(self, word: str) -> bool:
        """Whether the word analyzes to one of the query's terms (its terms looked up once per
        process: _word_terms)."""
        marked = self._verdicts[word] = not self.query_terms.isdisjoint(_word_terms(word, self._analyzer_name))
        return marked


def _lower_in_place(text: str) -> str:
    """Lowercase with every character where it was (a character whose lowercase is longer
    keeps the first one). The joined texts are lowered as one string: MARK_START between them
    is neither cased nor case-ignorable, so a final sigma reads each text's end as its end, and
    mark_many joins ASCII texts apart (str.lower's fast path)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(char.lower()[0] for char in text)
    return lowered


def _wrap_spans(text: str, spans: list[tuple[int, int]], opening: str, closing: str) -> str:
    """`text` with each span (sorted; overlaps: first wins) between `opening` and `closing`."""
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        if start < cursor or end <= start:
            continue
        pieces += (text[cursor:start], opening, text[start:end], closing)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _mark_escaped(escaped: str, spans: list[tuple[int, int]]) -> str:
    """Wrap the spans of an already escaped text in <mark>."""
    return _wrap_spans(escaped, spans, MARK_OPEN, MARK_CLOSE) if spans else escaped


def mark_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Escape `text` and wrap the given character spans of it in <mark> (overlaps: first wins).

    Sentinels go in first and the whole text is escaped once: far cheaper than
    escaping every piece. Stored text has no control characters (record validation);
    any that slipped in are dropped so they cannot pose as sentinels."""
    text = _drop_sentinels(text)
    if not spans:
        return escape_html(text)
    wrapped = _wrap_spans(text, spans, MARK_START, MARK_END)
    return escape_html(wrapped).replace(MARK_START, MARK_OPEN).replace(MARK_END, MARK_CLOSE)
