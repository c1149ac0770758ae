"""The bilingual ML term glossary: Chinese term <-> the English term papers use.

CC-CEDICT knows what 反向 and 传播 mean; it does not know that 反向传播 is "backpropagation".
The glossary is that knowledge, mined once from permissively licensed Chinese ML texts and
glossaries (`papersift glossary build`, index/glossary_build.py) and vendored in the package
as `papersift/data/glossary.tsv.gz`, every entry with its sources (listed with their licences
in `papersift/data/GLOSSARY-NOTICE.md`) and a confidence from the evidence: sources agreeing,
the English phrase's use in the corpus, the multilingual model's agreement.

Keys are simplified Chinese, NFC, full-width forms folded (ingest.glossary_sources.normalize_zh);
a traditional-script query is converted by the caller before lookup. Loaded lazily, once per
process; a line becomes an entry when it is looked up (`Glossary`).
"""

from __future__ import annotations

import gzip
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from papersift.index.glossary_build import GLOSSARY_FILE, HEADER
from papersift.ingest.glossary_sources import english_key, normalize_zh


class GlossaryEntry(NamedTuple):
    zh: str  # simplified Chinese, NFC, full-width folded
    en: str  # the English term as papers write it (lower case unless an acronym or a proper noun)
    sources: tuple[str, ...]  # source keys, as in the NOTICE
    confidence: float  # 0..1, from the evidence


class Glossary:
    """Both directions of the entries, best entry first. A line becomes an entry when a look-up
    asks for it, and the English side is indexed on its first use: a process reads a few terms,
    not 17,000 (a CLI query's glossary costs ~0.02 s of CPU instead of ~0.09)."""

    def __init__(self, lines: list[str], source: str):
        self._lines = lines  # the data lines, the header left out
        self._source = source  # named in the error of a malformed line
        self._rows_of_zh: dict[str, list[int]] = {}
        for row, line in enumerate(lines):
            zh = line.partition("\t")[0]
            if zh:
                self._rows_of_zh.setdefault(zh, []).append(row)
        self._ranked: dict[tuple[int, ...], tuple[GlossaryEntry, ...]] = {}

    def zh_keys(self) -> frozenset[str]:
        return frozenset(self._rows_of_zh)

    def by_zh(self, term: str) -> tuple[GlossaryEntry, ...] | None:
        rows = self._rows_of_zh.get(term)
        return self._entries(rows) if rows is not None else None

    def best_confidence(self, term: str) -> float:
        """The confidence of the term's best entry (0 when it has none), without making its entries."""
        return max((float(self._lines[row].rpartition("\t")[2]) for row in self._rows_of_zh.get(term, ())), default=0.0)

    def by_en(self, key: str) -> tuple[GlossaryEntry, ...] | None:
        rows = self._rows_of_en.get(key)
        return self._entries(rows) if rows is not None else None

    @cached_property
    def _rows_of_en(self) -> dict[str, list[int]]:
        rows_of_en: dict[str, list[int]] = {}
        for row, line in enumerate(self._lines):
            fields = line.split("\t", 2)
            if len(fields) > 1:
                rows_of_en.setdefault(english_key(fields[1]), []).append(row)
        return rows_of_en

    def _entries(self, rows: list[int]) -> tuple[GlossaryEntry, ...]:
        """The rows' entries, best first: highest confidence, then more sources, then file order."""
        key = tuple(rows)
        found = self._ranked.get(key)
        if found is None:
            entries = [parse_line(self._lines[row], self._source, row + 2) for row in rows]
            found = self._ranked[key] = tuple(sorted(entries, key=lambda e: (-e.confidence, -len(e.sources))))
        return found


def glossary_path() -> Path:
    """The vendored glossary file inside the installed package."""
    return Path(str(resources.files("papersift") / "data" / GLOSSARY_FILE))


def read_lines(path: str | Path) -> list[str]:
    """The data lines of a glossary file (gzip TSV with the HEADER columns)."""
    lines = gzip.decompress(Path(path).read_bytes()).decode("utf-8").split("\n")
    header = tuple(lines[0].split("\t"))
    if header != HEADER:
        raise ValueError(f"{path}: not a glossary file (header {header!r}, expected {HEADER!r})")
    return lines[1:-1] if lines[-1] == "" else lines[1:]


def parse_line(line: str, source: str | Path, number: int) -> GlossaryEntry:
    """One line as an entry; a malformed one fails with one line naming the file and line number."""
    try:
        zh, en, sources, confidence = line.split("\t")
        return GlossaryEntry(zh, en, tuple(sources.split(",")), float(confidence))
    except ValueError:
        raise ValueError(f"{source}:{number}: expected 4 tab-separated fields (zh, en, sources, confidence)") from None


def read_entries(path: str | Path) -> list[GlossaryEntry]:
    """Every entry of a glossary file, each line checked."""
    return [parse_line(line, path, number) for number, line in enumerate(read_lines(path), start=2)]


def open_glossary(path: str | Path, checked: bool = False) -> Glossary:
    """A glossary file for look-ups; `checked`: every line parsed first (a malformed one fails
    with its file and line number), as for a file given on the command line."""
    lines = read_lines(path)
    if checked:
        for number, line in enumerate(lines, start=2):
            parse_line(line, path, number)
    return Glossary(lines, str(path))


@lru_cache(maxsize=1)
def glossary() -> Glossary:
    """The vendored glossary, read once per process."""
    return open_glossary(glossary_path())


def lookup_zh(term: str) -> list[GlossaryEntry]:
    """The entries of a simplified Chinese term (NFC and full-width folding applied), best first."""
    found = glossary().by_zh(term)  # a key is its own normal form: most look-ups need no folding
    return list(found if found is not None else glossary().by_zh(normalize_zh(term)) or ())


def lookup_en(phrase: str) -> list[GlossaryEntry]:
    """The Chinese entries of an English phrase (case, spacing and hyphens ignored), best first."""
    key = english_key(phrase)
    # a plural or singular form of a term finds it ("graph neural networks", "embeddings")
    for form in (key, key[:-1] if key.endswith("s") else key + "s"):
        found = glossary().by_en(form)
        if found is not None:
            return list(found)
    return []


def best_confidence(term: str) -> float:
    """The confidence of a simplified Chinese term's best entry (0 when it has none)."""
    return glossary().best_confidence(term)


@lru_cache(maxsize=1)
def zh_terms() -> frozenset[str]:
    """Every Chinese key (for longest-match segmentation)."""
    return glossary().zh_keys()
