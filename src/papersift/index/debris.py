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
# "- " found by re's literal scan: str's own search for a 2-character needle ("- " in text) takes
# ~2.5 us on a 1,000-character abstract, this ~0.7 us (CPython 3.11; a page checks 40 texts)
_HYPHEN_SPACE = re.compile("- ")
_LINE_END_HYPHEN = re.compile(r"\b([A-Za-z]+)- ([a-z]+)\b")
_SUSPENDED_BEFORE = frozenset({"and", "or", "to", "nor", "the", "of", "as", "vs", "versus", "in", "on", "for", "with",
                               "a", "an", "is", "are"})
KNOWN_WORD_PAPERS = 20  # a rejoined word counts as a word when this many papers use it


def _without_soft_hyphens(text: str) -> str:
    # a substring test first: most texts have none, and a page cleans 40 of them (the regex
    # on every abstract cost a result page ~0.09 ms, `papersift bench lexical`)
    return _SOFT_HYPHEN.sub("", text) if "(cid:173)" in text else text


def has_debris(text: str) -> bool:
    """Whether clean_extraction_debris may change the text (two scans at C speed: a page's 40
    texts skip its call when, as most, they have neither)."""
    return _HYPHEN_SPACE.search(text) is not None or "(cid:173)" in text


def cleaned_texts(texts: list[str | None], known: Callable[[str], bool] | None = None) -> list[str | None]:
    """clean_extraction_debris of each text that has_debris, the others as they are (a result
    page's 40 texts in one call: most have no debris, and the checks are its cost)."""
    return [clean_extraction_debris(text, known) if text and has_debris(text) else text for text in texts]


def clean_extraction_debris(text: str, known: Callable[[str], bool] | None = None) -> str:
    """The text as its authors wrote it: soft hyphens joined always ("learn(cid:173) ing" ->
    "learning"); a line-end hyphen ("bidi- rected") joined when `known` says the joined word is a
    word (the corpus' own words: known_words), never before and / or / to ("pre- and post-")."""
    text = _without_soft_hyphens(text)
    if known is None or _HYPHEN_SPACE.search(text) is None:
        return text

    pieces: list[str] = []
    done = 0  # text[:done] is in pieces
    for left_start, hyphen, right_end in _line_end_pairs(text):
        left, right = text[left_start:hyphen], text[hyphen + 2:right_end]
        if right not in _SUSPENDED_BEFORE and known(left + right):
            pieces += (text[done:left_start], left, right)
            done = right_end
    return "".join([*pieces, text[done:]]) if pieces else text


_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LOWER_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what \b and \w of a str pattern take as a word character


def _line_end_pairs(text: str) -> list[tuple[int, int, int]]:
    """(start, hyphen, end) of each match of _LINE_END_HYPHEN in the text, in order, found from
    the text's "- " instead of by the regex: it tries every word start of a 1,000-character
    abstract (~40 us a text that has a "- " at all; `papersift bench lexical`), this only the
    hyphens. The same matches: the letters before the hyphen are a whole word (ASCII letters
    only: no word character before them), and the lowercase letters after it end a word."""
    found: list[tuple[int, int, int]] = []
    floor = 0  # the regex goes on past its last match: none starts before it
    hyphen = _next_hyphen(text, 0)
    while hyphen >= 0:
        start = hyphen
        while start > floor and text[start - 1] in _ASCII_LETTERS:
            start -= 1
        end = hyphen + 2
        while end < len(text) and text[end] in _LOWER_LETTERS:
            end += 1
        if (start < hyphen and end > hyphen + 2 and (start == 0 or not _is_word_char(text[start - 1]))
                and (end == len(text) or not _is_word_char(text[end]))):
            found.append((start, hyphen, end))
            floor = end
            hyphen = _next_hyphen(text, end)
        else:
            hyphen = _next_hyphen(text, hyphen + 1)
    return found


def _next_hyphen(text: str, start: int) -> int:
    """text.find("- ", start), by re's faster scan (_HYPHEN_SPACE)."""
    found = _HYPHEN_SPACE.search(text, start)
    return found.start() if found is not None else -1


def indexed_text(text: str) -> str:
    """What the keyword index reads of a paper's text: soft hyphens joined, and after the text
    (a line apart, so no phrase spans it) the joined form of each line-end hyphen pair. While
    indexing, which joined forms are words is not known yet (the index counts them), so the
    written pair stays and its joined form is added: "bidi- rected" is found by "bidirected"
    and by "bidi rected"; "pre- and" (a suspended hyphen) adds nothing."""
    text = _without_soft_hyphens(text)
    if _HYPHEN_SPACE.search(text) is None:
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
