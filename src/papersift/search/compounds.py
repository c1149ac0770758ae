"""The compound spellings of an English phrase that papers use (issue 26).

Papers write many compounds three ways: closed ("hyperparameter", "feedforward", "multilayer"),
hyphenated ("hyper-parameter") or open ("feed forward"). The index's tokenizer splits at the
hyphen, so a hyphenated and an open spelling are the same phrase query, but a closed word is
another term: the reading "hyper-parameter optimization" finds 11 papers where "hyperparameter
optimization" is in 87. `compound_spellings` gives a phrase's other spellings from the corpus's own
vocabulary (the term lexicon's phrase table, index/termlexicon.py), by two general rules:

- join: a hyphenated pair ("hyper-parameter") or two adjacent words ("feed forward") as one word,
  when papers use that word;
- split: a word ("hyperparameter") as a hyphenated pair, when both halves are words and papers
  use the pair as a phrase.

Each spelling must be used by papers about as a spelling is (MIN_SHARE of the form it varies:
not a line-break hyphenation, "net- work"), and the whole phrase must be one papers use (when it
is short enough for the phrase table to know it). No word list: nothing names a compound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

from papersift.index.phrasecounts import MAX_PHRASE_WORDS
from papersift.search.termlexicon import analyzed

MIN_PART_CHARS = 2  # "co-training", "re-ranking": a half is a word of two letters at least
MAX_WORDS = 8  # longer texts are descriptions, not a term's reading
MAX_COMBINATIONS = 32  # the spellings tried for one phrase (each word's forms combined)
# A spelling counts when papers use it at least this share as often as the spelling it varies:
# line-break hyphenation leaves "net- work" (23 papers against network's 10,550), "learn- ing",
# "neu- ral" in abstracts, at most 0.016 of the word on /work/data/s6, where spellings of one
# compound are 0.07 or more of each other (tree bank / treebank 0.07, data set / dataset 0.14,
# crowd sourcing / crowdsourcing 0.12, feed forward / feedforward 0.93).
MIN_SHARE = 0.05


class Phrases(Protocol):
    """What the spellings ask of the term lexicon (search/termlexicon.py TermLexicon)."""

    def papers(self, key: str) -> int: ...  # papers using a phrase key (0: none), without its spelling

    @property
    def papers_total(self) -> int: ...  # the papers counted

    def __hash__(self) -> int: ...  # a word's split is remembered per phrase table (_split)


def compound_spellings(text: str, phrases: Phrases, limit: int = 2) -> tuple[str, ...]:
    """Up to `limit` other spellings of `text` (a term's English reading) that papers use, the most
    used first; each differs from `text` in its index terms (not only in hyphens or spaces,
    which the phrase query already treats alike)."""
    words = text.split()
    if not words or len(words) > MAX_WORDS or limit < 1:
        return ()
    # options[i]: (end, spelling) for the words i..end-1
    options: list[list[tuple[int, str]]] = []
    for at, word in enumerate(words):
        here = [(at + 1, word)]
        halves = word.split("-")
        if len(halves) == 2:
            joined = _joined(halves[0], halves[1], phrases)
            if joined is not None:
                here.append((at + 1, joined))
        else:
            split = _split(word, phrases)
            if split is not None:
                here.append((at + 1, split))
        if at + 1 < len(words) and "-" not in word and "-" not in words[at + 1]:
            joined = _joined(word, words[at + 1], phrases)
            if joined is not None:
                here.append((at + 2, joined))
        options.append(here)
    combined: list[str] = []

    def walk(at: int, parts: list[str]) -> None:
        if len(combined) >= MAX_COMBINATIONS:
            return
        if at == len(words):
            combined.append(" ".join(parts))
            return
        for end, spelled in options[at]:
            walk(end, [*parts, spelled])

    walk(0, [])
    own = analyzed(text)
    floor = MIN_SHARE * (phrases.papers(own) if len(own.split()) <= MAX_PHRASE_WORDS else 0)
    found: dict[str, tuple[int, str]] = {}  # phrase key -> (papers, spelling)
    for spelled in combined:
        key = analyzed(spelled)
        if not key or key == own or key in found:
            continue
        if len(key.split()) <= MAX_PHRASE_WORDS:
            used = phrases.papers(key)
            if not used or used < floor:  # no paper writes the whole phrase so, or hardly any
                continue
            found[key] = (used, spelled)
        else:  # longer than the phrase table's phrases: each part was checked
            found[key] = (0, spelled)
    ranked = sorted(found.values(), key=lambda item: -item[0])
    return tuple(spelled for _, spelled in ranked[:limit])


GAP_WORD = "and"  # any stop word spells the gap alike: the index drops it and keeps its position
MAX_GAP_WORDS = 3  # readings of up to this many words are tried with a stop word between two of them


def gap_spellings(text: str, phrase_papers: Callable[[str], int],
                  term_papers: Callable[[str], int] | None = None) -> tuple[str, ...]:
    """`text` with a stop word between two of its words ("spike-slab": "spike and slab"), where
    papers hardly write `text` itself: under MIN_SHARE as often as that spelling, the rule for a
    spelling papers use. `phrase_papers` counts the papers with a phrase in the index, which keeps
    a dropped stop word's position (the phrase table's keys drop stop words: they cannot tell
    these spellings apart). The gap matches any stop word ("batch of learning"), so a reading
    papers do write ("batch learning", 28 papers against 46) keeps its own spelling alone.

    `term_papers` (papers whose text has an analyzed term, the index's document frequency) bounds
    every spelling's papers by its rarest term's: when `text` is used by MIN_SHARE of that many
    papers, no spelling can pass it, and none is counted (each count is a phrase search, ~0.1 ms;
    a Chinese term page asked one or two)."""
    words = text.replace("-", " ").split()
    keys = [analyzed(word) for word in words] if 2 <= len(words) <= MAX_GAP_WORDS else []
    if not keys or not all(keys):
        return ()
    own = phrase_papers(text)
    if term_papers is not None and own >= MIN_SHARE * min(term_papers(term) for key in keys for term in key.split()):
        return ()
    found = []
    for at in range(1, len(words)):
        spelled = " ".join([*words[:at], GAP_WORD, *words[at:]])
        papers = phrase_papers(spelled)
        if own < MIN_SHARE * papers:
            found.append((papers, spelled))
    return tuple(spelled for _, spelled in sorted(found, key=lambda item: -item[0]))


def _joined(first: str, second: str, phrases: Phrases) -> str | None:
    """The two words as one word, when papers use it ("feed" + "forward": "feedforward")."""
    if not (first.isalpha() and second.isalpha()):
        return None
    word = (first + second).lower()
    key = analyzed(word)
    pair = phrases.papers(analyzed(f"{first} {second}"))
    used = phrases.papers(key) if key and " " not in key else 0
    if not used or used < MIN_SHARE * pair:
        return None
    return word


SPLITS_KEPT = 1 << 14


@lru_cache(maxsize=SPLITS_KEPT)
def _split(word: str, phrases: Phrases) -> str | None:
    """The word as a hyphenated pair of words papers use as a phrase, the most used cut
    ("hyperparameter": "hyper-parameter"); None when there is none. Remembered per phrase table
    (a phrase table never changes; `index` writes a new one): each cut is analyzed and looked
    up, ~10 us a cut, and the readings of Chinese terms share most of their words (of the 1,363
    words split for the 300 zhterms dev terms, 677 were distinct)."""
    if not word.isalpha() or len(word) < 2 * MIN_PART_CHARS:
        return None
    best: tuple[int, str] | None = None
    lowered = word.lower()
    floor = MIN_SHARE * phrases.papers(analyzed(lowered))
    for cut in range(MIN_PART_CHARS, len(lowered) - MIN_PART_CHARS + 1):
        first, second = lowered[:cut], lowered[cut:]
        halves = (analyzed(first), analyzed(second))
        if any(not half or " " in half for half in halves):  # a stop word, or no word
            continue
        used = phrases.papers(f"{halves[0]} {halves[1]}")
        if used and used >= floor and (best is None or used > best[0]):
            best = (used, f"{first}-{second}")
    return best[1] if best is not None else None


def equal_weight(spelled: str, text: str, phrases: Phrases) -> float:
    """What a match of `spelled` is multiplied by to score as a match of `text` does. BM25 weighs
    a phrase by the summed idf of its words, so a spelling of more words outscores the other by
    its word count alone ("hyper-parameter optimization", three words, over "hyperparameter
    optimization", two): the ratio of the two sums evens that out."""
    own, other = _summed_idf(text, phrases), _summed_idf(spelled, phrases)
    return own / other if own > 0 and other > 0 else 1.0


def _summed_idf(text: str, phrases: Phrases) -> float:
    """BM25's idf (as tantivy computes it) of each index term of `text`, summed; a term the phrase
    table lacks (under its two papers) counts as in one paper."""
    total = max(phrases.papers_total, 1)
    summed = 0.0
    for term in analyzed(text).split():
        papers = phrases.papers(term) or 1
        summed += math.log(1 + (total - papers + 0.5) / (papers + 0.5))
    return summed
