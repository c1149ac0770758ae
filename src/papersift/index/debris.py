"""PDF-extraction debris in paper text, cleaned where text is indexed, marked and shown.

"learn(cid:173) ing" is a soft hyphen (U+00AD, glyph id 173) that the extractor wrote as its
glyph id, the word broken at a line end; "bidi- rected" is a word hyphenated at a line end.
4,528 soft hyphens in 1,604 of the 33,925 abstracts of the shared corpus; ~2,000 distinct
"x- y" pairs in 1,558, many of them real suspended hyphens ("pre- and post-training").

The store and the row store keep the text as ingested. The keyword index reads the text with
soft hyphens dropped and, after it, each line-end pair joined ("bidirected": `indexed_text`),
so a search for the word finds the paper; snippets (search) and pages (web) show
`clean_extraction_debris`, which joins a line-end pair only into a word the keyword index knows.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_SOFT_HYPHEN = re.compile(r"\(cid:173\)\s*")
_LINE_END_HYPHEN = re.compile(r"\b([A-Za-z]+)- ([a-z]+)\b")
_SUSPENDED_BEFORE = frozenset({"and", "or", "to", "nor", "the", "of", "as", "vs", "versus", "in", "on", "for", "with",
                               "a", "an", "is", "are"})
KNOWN_WORD_PAPERS = 20  # a rejoined word counts as a word when this many papers use it


def _without_soft_hyphens(text: str) -> str:
    # a substring test first: most texts have none, and a page cleans 40 of them (the regex
    # on every abstract cost a result page ~0.09 ms, `papersift bench lexical`)
    return _SOFT_HYPHEN.sub("", text) if "(cid:173)" in text else text


def clean_extraction_debris(text: str, known: Callable[[str], bool] | None = None) -> str:
    """The text as its authors wrote it: soft hyphens joined always ("learn(cid:173) ing" ->
    "learning"); a line-end hyphen ("bidi- rected") joined when `known` says the joined word is a
    word (the corpus' own words: known_words), never before and / or / to ("pre- and post-")."""
    text = _without_soft_hyphens(text)
    if known is None or "- " not in text:
        return text

    def rejoin(match: re.Match) -> str:
        left, right = match.groups()
        if right in _SUSPENDED_BEFORE or not known(left + right):
            return match.group(0)
        return left + right
    return _LINE_END_HYPHEN.sub(rejoin, text)


def indexed_text(text: str) -> str:
    """What the keyword index reads of a paper's text: soft hyphens joined, and after the text
    (a line apart, so no phrase spans it) the joined form of each line-end hyphen pair. While
    indexing, which joined forms are words is not known yet (the index counts them), so the
    written pair stays and its joined form is added: "bidi- rected" is found by "bidirected"
    and by "bidi rected"; "pre- and" (a suspended hyphen) adds nothing."""
    text = _without_soft_hyphens(text)
    if "- " not in text:
        return text
    joined = [left + right for left, right in _LINE_END_HYPHEN.findall(text) if right not in _SUSPENDED_BEFORE]
    return f"{text} \n {' '.join(joined)}" if joined else text


@functools.cache
def _english_analyzer():
    from papersift.index.analyzers import english_analyzer

    return english_analyzer()


def known_words(term_doc_freq: Callable[[str], int] | None) -> Callable[[str], bool] | None:
    """`word -> bool`: the keyword index has the word (analyzed as it indexes text) in at least
    KNOWN_WORD_PAPERS papers; None without a keyword index that counts terms."""
    if term_doc_freq is None:
        return None
    analyzer = _english_analyzer()

    def known(word: str) -> bool:
        terms = analyzer.analyze(word)
        return len(terms) == 1 and term_doc_freq(terms[0]) >= KNOWN_WORD_PAPERS
    return known
