"""Bilingual ML term pairs read from fetched, permissively licensed sources (the glossary's input).

Chinese technical writing puts the English term after the Chinese one, "*感受野*（receptive
field）", and some books keep a term list ("鞍点，saddle point"). This module reads a source
manifest (TOML: each source's repository, URL, licence, licence file, where its fetched files
are and which reader reads which files) and yields candidate pairs with where they came from.
Weighing the evidence and writing the vendored file is index/glossary_build.py's work.

Readers:
- `term-list`: one pair a line, "中文，English" / "中文, English" / "中文：English", or a
  markdown table row with a Chinese cell and an English cell;
- `prose`: markdown / mdx text, "*中文*（English）" (a marked term: sure of both ends) and
  "中文（English）" in running text (the Chinese term's start is a guess: cut after the last
  function word, or matched to a term another reading marked).

A source lives in a folder or a bare git directory (read at its recorded commit, HEAD by
default, with `git`). Only the licences in ALLOWED_LICENCES are read; the licence file must
exist and say what the manifest says.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

# SPDX id -> phrases its licence text must contain (the check that the file is that licence)
ALLOWED_LICENCES: dict[str, tuple[str, ...]] = {
    "MIT": ("Permission is hereby granted, free of charge",),
    "Apache-2.0": ("Apache License", "Version 2.0"),
    "BSD-2-Clause": ("Redistribution and use in source and binary forms",),
    "BSD-3-Clause": ("Redistribution and use in source and binary forms",),
    "CC0-1.0": ("CC0",),
    "CC-BY-4.0": ("Attribution 4.0",),
    "CC-BY-SA-4.0": ("Attribution-ShareAlike 4.0",),
}
READERS = ("term-list", "prose")
MARKED, LISTED, PROSE = "marked", "listed", "prose"  # how a pair was found, surest first
MAX_ZH_CHARS = 12
MAX_EN_WORDS = 6

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_CHAR = re.compile(f"[{_HAN}]")
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'’.][A-Za-z0-9]+)*'?")
_EN_TERM = re.compile(r"[A-Za-z][A-Za-z0-9'’\-. ]*[A-Za-z0-9']|[A-Za-z]")
# a term the text marks with * or ** (or _), then its English in full- or half-width parentheses
_MARKED_ZH_EN = re.compile(rf"(\*\*?|_)([{_HAN}A-Za-z0-9\-·]{{1,{MAX_ZH_CHARS}}})\1\s*[（(]([^（）()\n]{{1,80}})[）)]")
# running text: a run of Chinese (Latin letters inside: "Softmax函数") right before the parentheses
_PROSE_ZH_EN = re.compile(rf"([{_HAN}A-Za-z0-9\-]*[{_HAN}])\s*[（(]([^（）()\n]{{1,80}})[）)]")
# where a term in running text cannot start: after these words the term begins
_BOUNDARY_WORDS = (
    "称为", "叫做", "称作", "被称为", "也称", "简称", "即", "的", "了", "是", "在", "和", "与", "或", "及", "以及",
    "为", "被", "将", "把", "对", "从", "由", "用", "使用", "采用", "一个", "一种", "个", "种", "这", "那", "其",
    "如", "例如", "比如", "包括", "通过", "所谓", "我们", "它", "该", "此", "每", "各", "并", "但", "而", "就", "也",
    "都", "会", "能", "可以", "要", "所", "中的", "上的", "下的", "有", "没有", "之", "等", "来", "到", "给",
)
_BOUNDARY = re.compile("|".join(sorted(map(re.escape, _BOUNDARY_WORDS), key=len, reverse=True)))
_LIST_SPLIT = re.compile(r"\s*(?:[，,：:\t|]|\s{2,})\s*")
_CODE_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_INLINE_NOISE = re.compile(r"`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|<[^>\n]+>|:[a-z]+:`[^`]*`|!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_EN_NOT_TERM = re.compile(r"\b(?:e\.g|i\.e|etc|see|http|www|figure|fig|section|chapter|such as)\b")


class SourceError(ValueError):
    """A source that cannot be used: named, with why (one line)."""


@dataclass(frozen=True)
class Reading:
    reader: str  # one of READERS
    paths: tuple[str, ...]  # glob patterns over the source's files ("**" crosses folders)


@dataclass(frozen=True)
class Source:
    key: str  # short name, used in the glossary's sources column
    repo: str  # owner/name
    url: str
    licence: str  # SPDX id, one of ALLOWED_LICENCES
    licence_file: str  # path of the licence file read, inside the source
    location: Path  # a folder or a bare git directory
    commit: str  # the commit read ("" for a plain folder without one)
    script: str  # "simplified" or "traditional" (converted to simplified)
    readings: tuple[Reading, ...]
    title: str = ""

    def tree(self) -> SourceTree:
        return SourceTree(self.location, self.commit)


@dataclass(frozen=True)
class Candidate:
    zh: str  # simplified, normalized
    en: str  # cleaned English as the source writes it
    source: str
    how: str  # MARKED, LISTED or PROSE
    path: str  # the file it was read from


class SourceTree:
    """The files of a source: a plain folder, or a bare git directory at a commit."""

    def __init__(self, location: Path, commit: str = ""):
        self.location = location
        self.is_git = (location / "HEAD").is_file() and (location / "objects").is_dir()
        self.commit = commit
        if self.is_git and not commit:
            self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        done = subprocess.run(["git", "--git-dir", str(self.location), *args], check=False, capture_output=True,
                              text=True)
        if done.returncode:
            raise SourceError(f"{self.location}: git {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def files(self) -> list[str]:
        if self.is_git:
            return sorted(self._git("ls-tree", "-r", "--name-only", self.commit).splitlines())
        return sorted(str(path.relative_to(self.location)) for path in self.location.rglob("*") if path.is_file())

    def read(self, path: str) -> str:
        if self.is_git:
            return self._git("show", f"{self.commit}:{path}")
        return (self.location / path).read_text(encoding="utf-8", errors="replace")

    def matching(self, patterns: tuple[str, ...]) -> list[str]:
        return [path for path in self.files() if any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)]


# ---------------------------------------------------------------- normalizing


def fold_width(text: str) -> str:
    """Full-width ASCII forms (Ａ, ＣＮＮ, （, ，) and the ideographic space as their ASCII forms."""
    return text.translate(_FULL_WIDTH)


def normalize_zh(text: str) -> str:
    """A Chinese term as the glossary keys it: NFC, full-width forms folded, no spaces at the ends."""
    return fold_width(unicodedata.normalize("NFC", text)).strip()


def english_key(text: str) -> str:
    """An English term as the glossary looks it up: case, hyphens, underscores, curly quotes
    and runs of spaces ignored ("Self-Attention" and "self attention" are one key)."""
    text = fold_width(unicodedata.normalize("NFC", text)).replace("’", "'").lower()
    return " ".join(re.sub(r"[-_/]", " ", text).split())


def has_han(text: str) -> bool:
    return _HAN_CHAR.search(text) is not None


def is_acronym(word: str) -> bool:
    letters = [char for char in word if char.isalpha()]
    return len(letters) >= 2 and sum(char.isupper() for char in letters) >= 2


def clean_english(text: str) -> str | None:
    """One English term as papers write it, or None when `text` is not a term: lower case but for
    acronyms and mixed-case names (ResNet, IoU) and capitalised words after the first (proper
    nouns: "first-order Markov model"); a possessive name keeps its capital ("Zipf's law")."""
    text = " ".join(fold_width(unicodedata.normalize("NFC", text)).replace("’", "'").split()).strip(" .;:")
    lowered = text.lower()
    if not text or not _EN_TERM.fullmatch(text) or _EN_NOT_TERM.search(lowered):
        return None
    words = text.split()
    if len(text) < 2 or len(words) > MAX_EN_WORDS or not all(_EN_WORD.fullmatch(word) for word in words):
        return None
    headline = len(words) > 1 and all(word[0].isupper() for word in words if word[0].isalpha())
    kept = []
    for at, word in enumerate(words):
        plain_capital = word[:1].isupper() and not is_acronym(word)
        lower = plain_capital and (headline or (at == 0 and not re.search(r"'s?$", word)))
        kept.append(word.lower() if lower else word)
    return " ".join(kept)


def english_parts(inside: str) -> list[str]:
    """The English terms inside one pair of parentheses: "intersection over union，IoU" holds two."""
    parts = re.split(r"\s*(?:[，,;；/]|\bor\b)\s*", fold_width(inside))
    return [term for term in map(clean_english, parts) if term]


def chinese_term(text: str, converter=None) -> str | None:
    """A Chinese term cleaned (and converted to simplified by `converter`), or None when it is not one."""
    text = normalize_zh(text).strip("*_ ·、-")
    if len(text) > 2 and text.endswith("的"):  # "利普希茨连续的": the adjective's ending
        text = text[:-1]
    if converter is not None:
        text = converter(text)
    if not has_han(text) or len(text) > MAX_ZH_CHARS or re.search(r"[\s，。、；：！？,.;:!?\"'()（）]", text):
        return None
    return text


# ---------------------------------------------------------------- readers


def markdown_text(text: str) -> str:
    """Prose of a markdown / mdx file: code, math, tags and link targets dropped."""
    text = _CODE_FENCE.sub(" ", text)
    text = _INLINE_NOISE.sub(" ", text)
    return _LINK.sub(r"\1", text)


def read_term_list(text: str) -> Iterator[tuple[str, str, str]]:
    """(zh, en inside, how) from a term list: a pair a line or a table row."""
    for raw in text.splitlines():
        line = raw.strip().strip("|-*+ ").strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in _LIST_SPLIT.split(fold_width(line)) if cell.strip()]
        chinese = [cell for cell in cells if has_han(cell)]
        english = [cell for cell in cells if not has_han(cell) and re.search("[A-Za-z]", cell)]
        if len(chinese) != 1 or not english:
            continue
        inside = ", ".join(english)
        # "长短期记忆网络，long short-term memory (LSTM)": the acronym in parentheses is a part too
        yield chinese[0], re.sub(r"\s*\(([^()]*)\)", r", \1", inside), LISTED


def prose_start(run: str) -> str:
    """Where a term in running text starts: after the last function word of the Chinese run."""
    cut = 0
    for found in _BOUNDARY.finditer(run):
        if found.end() < len(run):
            cut = found.end()
    return run[cut:]


def read_prose(text: str) -> Iterator[tuple[str, str, str]]:
    """(zh, en inside, how) from markdown prose: marked terms, then terms in running text."""
    text = markdown_text(text)
    marked_spans = []
    for found in _MARKED_ZH_EN.finditer(text):
        marked_spans.append(found.span())
        yield found.group(2), found.group(3), MARKED
    for found in _PROSE_ZH_EN.finditer(text):
        if any(start <= found.start() < end for start, end in marked_spans):
            continue
        term = prose_start(found.group(1))
        if len(term) >= 2:
            yield term, found.group(2), PROSE


def read_source(source: Source, converter=None) -> Iterator[Candidate]:
    """Every candidate pair of a source, in file order. `converter` turns a traditional-script
    source's terms into simplified (OpenCC t2s)."""
    tree = source.tree()
    convert = converter if source.script == "traditional" else None
    for reading in source.readings:
        read = read_term_list if reading.reader == "term-list" else read_prose
        for path in tree.matching(reading.paths):
            for zh_text, inside, how in read(tree.read(path)):
                zh = chinese_term(zh_text, convert)
                if zh is None:
                    continue
                for en in english_parts(inside):
                    yield Candidate(zh, en, source.key, how, path)


# ---------------------------------------------------------------- the manifest


def load_manifest(path: Path, sources_dir: Path | None = None) -> list[Source]:
    """The sources a manifest lists; a location is relative to `sources_dir` (default: the
    manifest's folder). Fails with one line naming the source and the problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path}: cannot read the source manifest: {exc}") from None
    base = sources_dir if sources_dir is not None else path.parent
    sources = []
    for number, entry in enumerate(data.get("source", []), start=1):
        name = entry.get("key", f"source #{number}")
        try:
            readings = tuple(Reading(item["reader"], tuple(item["paths"])) for item in entry["read"])
            source = Source(key=entry["key"], repo=entry["repo"], url=entry["url"], licence=entry["licence"],
                            licence_file=entry["licence_file"], location=base / entry["location"],
                            commit=entry.get("commit", ""), script=entry.get("script", "simplified"),
                            readings=readings, title=entry.get("title", ""))
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{path}: source {name}: missing or malformed field {exc}") from None
        bad_readers = {reading.reader for reading in readings} - set(READERS)
        if bad_readers:
            raise SourceError(f"{path}: source {name}: unknown reader {sorted(bad_readers)} (known: {', '.join(READERS)})")
        if source.script not in ("simplified", "traditional"):
            raise SourceError(f"{path}: source {name}: script must be 'simplified' or 'traditional'")
        sources.append(source)
    if not sources:
        raise SourceError(f"{path}: no [[source]] entries")
    return sources


def check_licence(source: Source) -> str:
    """The source's licence text, after checking that it allows redistribution and that the
    licence file says so; a SourceError otherwise."""
    if source.licence not in ALLOWED_LICENCES:
        raise SourceError(f"source {source.key}: licence {source.licence!r} is not one that allows redistribution "
                          f"({', '.join(ALLOWED_LICENCES)})")
    tree = source.tree()
    if not source.location.exists():
        raise SourceError(f"source {source.key}: {source.location} does not exist (fetch it first)")
    try:
        text = tree.read(source.licence_file)
    except (OSError, SourceError):
        raise SourceError(f"source {source.key}: no licence file {source.licence_file!r}") from None
    if re.search(r"NonCommercial|NoDerivatives|NoDerivs|\bBY-NC\b|\bBY-ND\b", text):
        raise SourceError(f"source {source.key}: {source.licence_file} is a NonCommercial or NoDerivatives licence")
    if not all(phrase in text for phrase in ALLOWED_LICENCES[source.licence]):
        raise SourceError(f"source {source.key}: {source.licence_file} does not read as {source.licence}")
    return text
