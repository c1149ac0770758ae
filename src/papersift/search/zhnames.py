"""Chinese personal names read as the spellings papers use: 何恺明 → "Kaiming He".

A Chinese query of two to four characters that starts with a surname may name a person. Its
pinyin (pypinyin; the surname's own reading from CC-CEDICT, where 单 is "Shan", 曾 "Zeng")
gives two spellings, given name first ("Kaiming He", as papers write it) and surname first
("He Kaiming"); each is looked up among the store's author names (`papers.names.full_key`,
the key the author pages and `author:` use). The spelling with the most papers, when it has at
least MIN_PAPERS, is the reading, searched as an author filter (search/crosslingual.py).

A name is only tried for a token nothing else read surely (the glossary, or a dictionary word:
张量 is "tensor", not a Zhang), so terms keep their meaning.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from papersift.names import full_key
from papersift.search.stages import stage
from papersift.store import ReadOnlyStore

MIN_PAPERS = 2  # a spelling on one paper is too often a coincidence of syllables
MIN_CHARS, MAX_CHARS = 2, 4
NAME_CONFIDENCE = 0.9
# CC-CEDICT: "何 何 [He2] /surname He/": the headword (simplified, 2nd field) and its reading
_SURNAME = re.compile(r"^\S+ (\S{1,2}) \[[^\]]+\] /(?:.*?/)?(?:two-character )?surname ([A-Z][a-z]+)[/ ;(]")


@lru_cache(maxsize=1)
def surnames() -> dict[str, str]:
    """Chinese surname -> its pinyin as a name (何 -> He, 欧阳 -> Ouyang), from CC-CEDICT;
    the first reading a headword has (most have one). Once per process."""
    from papersift.search.cedict import dictionary_text, line_around

    text = dictionary_text()
    found: dict[str, str] = {}
    at = text.find(b"surname ")
    while at >= 0:  # only the lines that say "surname" (~1,400 of 124,000)
        start, end = line_around(text, at)
        entry = _SURNAME.match(text[start:end].decode("utf-8"))
        if entry is not None:
            found.setdefault(*entry.groups())
        at = text.find(b"surname ", end)
    return found


def spellings(name: str) -> list[str]:
    """The ways papers may write a Chinese name: given name first, then surname first
    (empty when it does not start with a known surname or is not 2-4 characters)."""
    if not MIN_CHARS <= len(name) <= MAX_CHARS:
        return []
    known = surnames()
    cuts = [(known[name[:cut]], name[cut:]) for cut in (2, 1)  # a two-character surname (欧阳) first
            if name[:cut] in known and 1 <= len(name) - cut <= 2]
    if not cuts:
        return []  # pypinyin's tables only for a name that may be one
    # pypinyin without its phrase table (~0.11 s less for a process's first name): it read the
    # given names of 1,106 of CC-CEDICT's 1,130 people as CC-CEDICT does, against 1,108 with it
    # (scripts/name_pinyin.py); the variable is read when pypinyin is first imported
    os.environ.setdefault("PYPINYIN_NO_PHRASES", "1")
    from pypinyin import lazy_pinyin

    found: list[str] = []
    for surname, given in cuts:
        syllables = lazy_pinyin(given, v_to_u=True, errors="ignore")
        if len(syllables) != len(given):
            continue
        given_name = "".join(syllables).capitalize()
        found += [f"{given_name} {surname}", f"{surname} {given_name}"]
        if len(syllables) == 2:  # "Fei-Fei Li": each syllable a word
            split_given = " ".join(syllable.capitalize() for syllable in syllables)
            found += [f"{split_given} {surname}", f"{surname} {split_given}"]
    return list(dict.fromkeys(found))


class ChineseNames:
    """Chinese name -> the author spelling papers use, by the store's author names."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self._open = ReadOnlyStore(self.data_dir)  # () -> the store, or None
        self._memo: dict[str, tuple[str, int] | None] = {}

    def papers(self, spelling: str) -> tuple[int, str]:
        """(papers, the spelling most of them use) of an author written this way up to case,
        accents and punctuation ("Fei Fei Li" finds "Fei-Fei Li")."""
        store = self._open()
        if store is None:
            return 0, spelling
        key = full_key(spelling)
        total = store.read("SELECT COUNT(DISTINCT paper_id) FROM paper_authors WHERE name_key = ?", (key,))
        common = store.read("SELECT name FROM paper_authors WHERE name_key = ? GROUP BY name ORDER BY COUNT(*) DESC, name"
                            " LIMIT 1", (key,))
        return (int(total[0][0]) if total else 0), (common[0][0] if common else spelling)

    def read(self, name: str) -> tuple[str, int] | None:
        """(spelling, papers) of the Chinese name: the spelling with the most papers, as papers
        write it; None when none has MIN_PAPERS papers."""
        if name not in self._memo:
            with stage("reading.names"):
                counted = [self.papers(spelling) for spelling in spellings(name)]
            papers, spelled = max(counted, key=lambda found: found[0], default=(0, ""))  # the first on ties
            self._memo[name] = (spelled, papers) if papers >= MIN_PAPERS else None
        return self._memo[name]
