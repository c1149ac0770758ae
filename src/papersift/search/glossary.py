"""The bilingual ML term glossary: Chinese term <-> the English term papers use.

CC-CEDICT knows what 反向 and 传播 mean; it does not know that 反向传播 is "backpropagation".
The glossary is that knowledge, mined once from permissively licensed Chinese ML texts and
glossaries (`papersift glossary build`, index/glossary_build.py) and vendored in the package
as `papersift/data/glossary.tsv.gz`, every entry with its sources (listed with their licences
in `papersift/data/GLOSSARY-NOTICE.md`) and a confidence from the evidence: sources agreeing,
the English phrase's use in the corpus, the multilingual model's agreement.

Keys are simplified Chinese, NFC, full-width forms folded (ingest.glossary_sources.normalize_zh);
a traditional-script query is converted by the caller before lookup. Loaded lazily, once per
process (~0.05 s of CPU: the entries are tuples, the English side is indexed on its first use).
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from papersift.index.glossary_build import GLOSSARY_FILE, HEADER
from papersift.ingest.glossary_sources import english_key, normalize_zh


class GlossaryEntry(NamedTuple):  # a tuple: ~17,000 are made on a process's first Chinese query
    zh: str  # simplified Chinese, NFC, full-width folded
    en: str  # the English term as papers write it (lower case unless an acronym or a proper noun)
    sources: tuple[str, ...]  # source keys, as in the NOTICE
    confidence: float  # 0..1, from the evidence


class Glossary:
    """Both directions of the entries, best entry first. The English side is indexed on its first
    use: reading a Chinese query needs only the Chinese side (a CLI query pays ~0.05 s less)."""

    def __init__(self, by_zh: dict[str, tuple[GlossaryEntry, ...]], entries: list[GlossaryEntry]):
        self.by_zh = by_zh
        self._entries = entries

    @cached_property
    def by_en(self) -> dict[str, tuple[GlossaryEntry, ...]]:
        by_en: dict[str, list[GlossaryEntry]] = defaultdict(list)
        for entry in self._entries:
            by_en[english_key(entry.en)].append(entry)
        return _ranked(by_en)


def glossary_path() -> Path:
    """The vendored glossary file inside the installed package."""
    return Path(str(resources.files("papersift") / "data" / GLOSSARY_FILE))


def read_entries(path: str | Path) -> list[GlossaryEntry]:
    """Every entry of a glossary file (gzip TSV with the HEADER columns). A malformed line
    fails with one line naming the file and the line number."""
    entries = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        header = tuple(next(lines, "").rstrip("\n").split("\t"))
        if header != HEADER:
            raise ValueError(f"{path}: not a glossary file (header {header!r}, expected {HEADER!r})")
        for number, line in enumerate(lines, start=2):
            fields = line.rstrip("\n").split("\t")
            try:
                zh, en, sources, confidence = fields
                entries.append(GlossaryEntry(zh, en, tuple(sources.split(",")), float(confidence)))
            except ValueError:
                raise ValueError(f"{path}:{number}: expected 4 tab-separated fields (zh, en, sources, confidence)") from None
    return entries


def index_entries(entries: list[GlossaryEntry]) -> Glossary:
    """Both directions, best entry first (highest confidence, then more sources, then file order)."""
    by_zh: dict[str, list[GlossaryEntry]] = defaultdict(list)
    for entry in entries:
        by_zh[entry.zh].append(entry)
    return Glossary(_ranked(by_zh), entries)


def _ranked(found: dict[str, list[GlossaryEntry]]) -> dict[str, tuple[GlossaryEntry, ...]]:
    return {key: tuple(sorted(group, key=lambda e: (-e.confidence, -len(e.sources)))) if len(group) > 1 else tuple(group)
            for key, group in found.items()}


@lru_cache(maxsize=1)
def glossary() -> Glossary:
    """The vendored glossary, read once per process."""
    return index_entries(read_entries(glossary_path()))


def lookup_zh(term: str) -> list[GlossaryEntry]:
    """The entries of a simplified Chinese term (NFC and full-width folding applied), best first."""
    by_zh = glossary().by_zh
    found = by_zh.get(term)  # a key is its own normal form: most look-ups need no folding
    return list(found if found is not None else by_zh.get(normalize_zh(term), ()))


def lookup_en(phrase: str) -> list[GlossaryEntry]:
    """The Chinese entries of an English phrase (case, spacing and hyphens ignored), best first."""
    by_en = glossary().by_en
    key = english_key(phrase)
    # a plural or singular form of a term finds it ("graph neural networks", "embeddings")
    for form in (key, key[:-1] if key.endswith("s") else key + "s"):
        if form in by_en:
            return list(by_en[form])
    return []


@lru_cache(maxsize=1)
def zh_terms() -> frozenset[str]:
    """Every Chinese key (for longest-match segmentation)."""
    return frozenset(glossary().by_zh)
