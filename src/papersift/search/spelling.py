"""Did you mean: misspelt query words corrected from the corpus's own vocabulary.

The vocabulary is the derived file `papersift index` writes (index/vocabulary.py: each word
of the papers with the number of papers using it); serving only reads it, once, and again
when `index` replaces it. Candidates come from symspellpy (symmetric delete, Damerau-OSA
distance up to 2). A typed word is corrected when fewer than RARE papers use it and a word
within distance 1 (2 for words of LONG_WORD letters or more) is used by at least FACTOR times
as many papers and at least MIN_USES of them: "difusion modles" -> "diffusion models", while
a rare but real term ("hypernetwork", used by 40 papers) stays as typed. Left alone: words in
capitals or with digits (acronyms: RUNX1, COPI), a word of general English (symspellpy's
own frequency dictionary: "bleeding" is no typo of "blending" because ML papers never bleed),
a word that contains its candidate or is contained in it ("uninvolved" is not "involved"). Names and ids never get here:
the service corrects only the words of short queries (a description's rare words are
meant) that its query intent left as a topic.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from pathlib import Path

from papersift.index.vocabulary import read, vocabulary_path
from papersift.throttle import RECHECK_S, Throttle

RARE = 3  # a word fewer papers than this use may be a typo
FACTOR = 20  # ... when a close word is this many times as common
MIN_USES = 10
MIN_LENGTH = 4  # shorter words are left alone (acronyms, "gan", "vae")
LONG_WORD = 10  # words this long may be two edits away from what was meant (shorter ones: one)
_WORD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """General English words (the frequency dictionary symspellpy ships, 82,765 words): an
    out-of-domain word is not a typo because the papers never use it."""
    from importlib.resources import files

    text = (files("symspellpy") / "frequency_dictionary_en_82_765.txt").read_text(encoding="utf-8")
    return frozenset(line.split(" ", 1)[0] for line in text.splitlines() if line)


class Speller:
    def __init__(self, data_dir: str | Path):
        self.path = vocabulary_path(data_dir)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._recheck = Throttle(RECHECK_S)
        self._read_once = False
        self._words: dict[str, int] = {}
        self._symspell = None  # built on the first word that needs a candidate

    def _current(self) -> dict[str, int]:
        """The vocabulary, read again when `index` has replaced it (looked at every RECHECK_S)."""
        if not self._recheck.due() and self._read_once:
            return self._words
        try:
            info = os.stat(self.path)
            stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = None
        with self._lock:
            if stamp != self._stamp:
                self._words = read(self.path.parent) if stamp is not None else {}
                self._symspell = None
                self._stamp = stamp
            self._read_once = True
            return self._words

    def _candidates(self):
        with self._lock:
            if self._symspell is None:
                from symspellpy import SymSpell

                symspell = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
                for word, count in self._words.items():
                    symspell.create_dictionary_entry(word, count)
                self._symspell = symspell
            return self._symspell

    def uses(self, word: str) -> int | None:
        """Papers that use the word (lower-cased), None when there is no vocabulary to tell."""
        words = self._current()
        return words.get(word.lower(), 0) if words else None

    def correct_word(self, word: str, words: dict[str, int] | None = None) -> str | None:
        """The word a misspelt word stands for, or None (known, too short, nothing close).
        `words`: the vocabulary as this request read it (suggest() reads it once, not per word)."""
        words = self._current() if words is None else words
        lowered = word.lower()
        if not words or len(lowered) < MIN_LENGTH or not lowered.isascii() or not lowered.isalpha():
            return None
        if word not in (lowered, lowered.capitalize()):  # an acronym or a name in capitals (RUNX, COPI)
            return None
        uses = words.get(lowered, 0)
        if uses >= RARE or lowered in english_words():  # a real word the papers rarely use: "bleeding"
            return None
        from symspellpy import Verbosity

        distance = 2 if len(lowered) >= LONG_WORD else 1
        found = self._candidates().lookup(lowered, Verbosity.TOP, max_edit_distance=distance)
        if not found or found[0].term == lowered:
            return None
        best = found[0]
        if best.term in lowered or lowered in best.term:  # 'uninvolved' is not a typo of 'involved'
            return None
        if best.count < max(MIN_USES, FACTOR * max(uses, 1)):
            return None
        return best.term

    def suggest(self, text: str) -> str | None:
        """The text with its misspelt words corrected, None when none is."""
        if _WORD.search(text) is None:  # no word to correct (a Chinese query): the vocabulary stays unread
            return None
        changed = False
        words = self._current()

        def replace(match: re.Match) -> str:
            nonlocal changed
            corrected = self.correct_word(match.group(0), words)
            if corrected is None:
                return match.group(0)
            changed = True
            return corrected

        corrected = _WORD.sub(replace, text)
        return corrected if changed else None
