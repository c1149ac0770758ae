"""Bilingual ML term pairs read from fetched, permissively licensed sources (the glossary's input).

Chinese technical writing puts the English term after the Chinese one, "*感受野*（receptive
field）", and some books keep a term list ("鞍点，saddle point"). This module reads a source
manifest (TOML: each source's repository, URL, licence, licence file, where its fetched files
are and which reader reads which files) and yields candidate pairs with where they came from.
Weighing the evidence and writing the vendored file is index/glossary_build.py's work.

Readers:
- `term-list`: one pair a line, "中文，English" / "中文, English" / "中文：English", or a
  markdown table row with a Chinese cell and an English cell;
- `term-table`: markdown tables whose header names their columns ("|英文|中文|缩写|首次提交人|"):
  each row's Chinese cell with its English cell (and its abbreviation cell); the other columns
  (a contributor, a note) are not read;
- `parallel`: documents that exist in both languages (a Chinese file and its English twin,
  found by a path rewrite, in this source or another one of the manifest): yields the pair of
  texts; index/glossary_align.py aligns their terms;
- `prose`: markdown / mdx text (notebooks: their markdown cells), "*中文*（English）" (a marked
  term: sure of both ends), "English（中文）" in running text (an English term glossed), and
  "中文（English）" in running text (the Chinese term's start is a guess: the possible starts
  after the last function word are kept, and the build picks one, index/glossary_build.py);
- translations kept unit by unit, one file holding both languages (UNIT_READERS): `po` (gettext
  catalogues, msgid / msgstr, either side Chinese), `cheatsheet` (numbered items, "N. **English**"
  or "**N. English**", then "&#10230; 中文"). Each unit is a document pair for the alignment; a
  unit whose two sides are each one term ("梯度" / "Gradient", a heading, an item of a bracketed
  list) is a pair itself (TRANSLATED); the Chinese side is read as prose too;
- `ecdict`: an English-Chinese dictionary in ECDICT's CSV layout (`word`, `translation`: senses
  split on "；", ";", "，", "," and lines, a line may start with a domain tag "[计]" and a part of
  speech "n."): each Chinese sense maps back to the English headword. A sense under a technical
  domain tag (TECHNICAL_TAGS) is a DICTIONARY pair; any other sense is DICTIONARY_GENERAL, which
  the build keeps only where another source gives the same pair (index/glossary_build.py);
- `cedict`: a Chinese-English dictionary in CC-CEDICT's layout ("繁 简 [pin1 yin1] /sense/sense/"):
  each English sense with the simplified headword; a sense marked with a technical field
  ("(math.)", "(computing)", CEDICT_TECHNICAL) is DICTIONARY, any other DICTIONARY_GENERAL.

A source lives in a folder or a bare git directory (read at its recorded commit, HEAD by
default, with `git`). Only the licences in ALLOWED_LICENCES are read; the licence file must
exist and say what the manifest says.
"""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterable, Iterator
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
UNIT_READERS = ("po", "cheatsheet")
DICTIONARY_READERS = ("ecdict", "cedict")
READERS = ("term-list", "term-table", "prose", "parallel", *UNIT_READERS, *DICTIONARY_READERS)
# how a pair was found: a term list, a marked term, an English term glossed in Chinese in running
# text ("Transformer（变换器）": both ends sure), a Chinese term in running text (its start a guess)
LISTED, MARKED, GLOSSED, PROSE = "listed", "marked", "glossed", "prose"
PARALLEL = "parallel"  # aligned from documents in both languages (index/glossary_align.py)
TRANSLATED = "translated"  # a unit of a translation (heading, list item) whose two sides are each one term
# a dictionary's sense under a technical domain tag; any other sense of it (agreement only)
DICTIONARY, DICTIONARY_GENERAL = "dictionary", "dictionary-general"
# ECDICT's domain tags of computing, mathematics, electronics and physics (read from the data: the
# tags by count are 医 化 计 网络 经 法 电 人名 机 地名 建 ...; 网络 marks senses mined from the web,
# not a field; 机 is mechanical engineering and processes)
TECHNICAL_TAGS = frozenset({"计", "数", "电", "物"})
# CC-CEDICT's field notes of the same fields (by count: math. 476, computing 382, physics 134,
# computer 44, electronics 39, statistics 34, geometry 26, math 14, electricity 13, elec. 10)
CEDICT_TECHNICAL = frozenset({"math.", "math", "computing", "computer", "physics", "electronics", "statistics",
                              "geometry", "electricity", "elec."})
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
# running text: an English term between Chinese text and its Chinese gloss in parentheses
_PROSE_EN_ZH = re.compile(rf"(?:(?<=[{_HAN}，。、：；！？“”])|^)[ \t]*(\*{{0,2}})([A-Za-z][A-Za-z0-9'\- ]{{0,50}}[A-Za-z0-9])\1"
                          rf"[ \t]*[（(]([{_HAN}]{{2,{MAX_ZH_CHARS}}})[）)]", re.MULTILINE)
# where a term in running text cannot start: after these words the term begins
_BOUNDARY_WORDS = (
    "称为", "叫做", "称作", "被称为", "也称", "简称", "即", "的", "了", "是", "在", "和", "与", "或", "及", "以及",
    "为", "被", "将", "把", "对", "从", "由", "用", "使用", "采用", "一个", "一种", "个", "种", "这", "那", "其",
    "如", "例如", "比如", "包括", "通过", "所谓", "我们", "它", "该", "此", "每", "各", "并", "但", "而", "就", "也",
    "都", "会", "能", "可以", "要", "所", "中的", "上的", "下的", "有", "没有", "之", "等", "来", "到", "给",
    "中", "包含", "一些", "这些", "那些", "这个", "那个", "它们", "称之为", "作为", "叫", "称", "即为", "就是",
    "也就是", "还", "又", "使", "让", "被称作", "所述", "以", "于", "向", "基于", "利用", "其中", "之间",
)
BOUNDARY_WORDS = frozenset(_BOUNDARY_WORDS)
_LIST_SPLIT = re.compile(r"\s*(?:[，,：:\t|]|\s{2,})\s*")
_CODE_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_INLINE_NOISE = re.compile(r"`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|<[^>\n]+>|:[a-z]+:`[^`]*`|!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
# cheatsheet-translation: "12. **English**" (or "**12. English**") then a line "&#10230; 中文", up
# to the next item
_CHEATSHEET_START = r"^\s*(?:\d+\.\s*\*\*|\*\*\d+\.\s*)"
_CHEATSHEET_ITEM = re.compile(rf"{_CHEATSHEET_START}(.+?)\*\*\s*$\s*(?:&#10230;|⟶)\s*(.*?)(?=^\s*<br>|{_CHEATSHEET_START}|\Z)",
                              re.MULTILINE | re.DOTALL)
_CHEATSHEET_HEAD = re.compile(r"\s*(?:―|—|–|\s-\s|：|:)\s*")
_LIST_ITEMS = re.compile(r"\s*[,，、;；]\s*")
# term-table: the header cells naming a table's English, Chinese and abbreviation columns
_TABLE_HEADS = {"en": ("英文", "英文术语", "英文名称", "english", "english term"),
                "zh": ("中文", "中文术语", "中文名称", "中文翻译", "译名", "chinese", "chinese term"),
                "abbr": ("缩写", "简称", "abbreviation", "acronym")}
# ECDICT: a line's domain tag and part of speech, a sense's parenthesised notes, sense separators
_DICT_LINE = re.compile(r"^\s*(?:\[([^\]]{1,8})\])?\s*(?:(?:[a-z]{1,5}\.\s*)+(?=[^a-z]))?")
_DICT_NOTE = re.compile(r"[（(][^（）()]*[）)]|[【\[][^】\]]*[】\]]")
_DICT_SENSES = re.compile(r"\s*[；;，,]\s*")
_CEDICT_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_CEDICT_NOT_SENSE = re.compile(r"^(?:CL:|see |see also |variant of |old variant of |abbr\. |surname |used in |\(old\))")
_EN_NOT_TERM = re.compile(r"\b(?:e\.g|i\.e|etc|see|http|www|figure|fig|section|chapter|such as)\b")


class SourceError(ValueError):
    """A source that cannot be used: named, with why (one line)."""


@dataclass(frozen=True)
class Reading:
    reader: str  # one of READERS
    paths: tuple[str, ...]  # glob patterns over the source's files ("*" crosses folders too)
    # parallel: the English twin of a Chinese file, (regex, replacement) on its path, and the
    # source whose files hold the twins ("" for this source)
    english_path: tuple[str, str] = ("", "")
    english_source: str = ""


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
    note: str = ""  # how the files were fetched, when not as a whole snapshot

    def tree(self) -> SourceTree:
        return SourceTree(self.location, self.commit)


@dataclass(frozen=True)
class DocumentPair:
    zh: str  # prose of the Chinese document (markdown cleaned)
    en: str  # prose of its English twin
    source: str
    path: str  # the Chinese document's path
    english_source: str  # the source holding the English twin (may be `source`)


@dataclass(frozen=True)
class Candidate:
    zh: str  # simplified, normalized
    en: str  # cleaned English as the source writes it
    source: str
    how: str  # MARKED, LISTED or PROSE
    path: str  # the file it was read from
    # running text: where the Chinese term may start, as the shorter terms `zh` ends with (longest first)
    options: tuple[str, ...] = ()


class SourceTree:
    """The files of a source: a plain folder, or a bare git directory at a commit."""

    def __init__(self, location: Path, commit: str = ""):
        self.location = location
        self.is_git = (location / "HEAD").is_file() and (location / "objects").is_dir()
        self.commit = commit
        if self.is_git and not commit:
            self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        # core.quotepath off: a path with non-ASCII characters ("Textbook/术语表.md") listed as it is, not quoted
        done = subprocess.run(["git", "-c", "core.quotepath=off", "--git-dir", str(self.location), *args], check=False,
                              capture_output=True, text=True)
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

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, str]]:
        """(path, text) of each path whose contents are there, in order: a snapshot may list a
        large file whose contents were not fetched (skipped)."""
        if not self.is_git:
            yield from ((path, self.read(path)) for path in paths)
            return
        request = "".join(f"{self.commit}:{path}\n" for path in paths).encode("utf-8")
        done = subprocess.run(["git", "--git-dir", str(self.location), "cat-file", "--batch"], input=request,
                              capture_output=True, check=False)
        if done.returncode:
            raise SourceError(f"{self.location}: git cat-file: {done.stderr.decode(errors='replace').strip()}")
        out, at = done.stdout, 0
        for path in paths:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            at = end + 1
            if len(header) != 3 or header[1] != b"blob":  # "<name> missing" / not a file
                continue
            size = int(header[2])
            yield path, out[at:at + size].decode("utf-8", errors="replace")
            at += size + 1

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
    if not text.isascii():  # ASCII is its own NFC and width fold, and has no curly quote
        text = fold_width(unicodedata.normalize("NFC", text)).replace("’", "'")
    return " ".join(text.lower().translate(_SEPARATORS).split())


_SEPARATORS = str.maketrans("-_/", "   ")


def has_han(text: str) -> bool:
    return _HAN_CHAR.search(text) is not None


def is_acronym(word: str) -> bool:
    """A word with two capitals in one part (CNN, ResNet, IoU; not Peer-to-Peer)."""
    return any(sum(char.isupper() for char in part) >= 2 for part in re.split(r"[-'’.]", word))


def clean_english(text: str) -> str | None:
    """One English term as papers write it, or None when `text` is not a term: lower case but for
    acronyms and mixed-case names (ResNet, IoU) and capitalised words after the first (proper
    nouns: "first-order Markov model"); a possessive name keeps its capital ("Zipf's law")."""
    text = " ".join(fold_width(unicodedata.normalize("NFC", text)).replace("’", "'").split()).strip(" .;:")
    text = re.sub(r"^(?:the|an?) (?=\S)", "", text, flags=re.IGNORECASE)
    lowered = text.lower()
    if not text or not _EN_TERM.fullmatch(text) or _EN_NOT_TERM.search(lowered):
        return None
    words = text.split()
    if (len(text) < 3 and not is_acronym(text)) or len(words) > MAX_EN_WORDS or not all(_EN_WORD.fullmatch(word) for word in words):
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


def notebook_markdown(text: str) -> str:
    """The markdown cells of a Jupyter notebook, one after another ("" for a file that is not one)."""
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return ""
    return "\n\n".join("".join(cell.get("source", [])) for cell in cells
                        if isinstance(cell, dict) and cell.get("cell_type") == "markdown")


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


def _words(run: str) -> list[str]:
    """jieba's segmentation of a CJK run (rjieba: jieba's dictionary and algorithm in Rust, as
    index/analyzers.py segments queries and papers)."""
    import rjieba

    return rjieba.cut(run)


def prose_terms(run: str) -> tuple[str, ...]:
    """Where a term in running text may start: the run's words (jieba) after its last function
    word, then each shorter ending at a word boundary; terms of 2+ characters, longest first."""
    words = _words(run)
    last = max((at for at, word in enumerate(words[:-1]) if word in BOUNDARY_WORDS), default=-1)
    words = words[last + 1:]
    return tuple(term for term in ("".join(words[at:]) for at in range(len(words))) if len(term) >= 2)


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
        yield found.group(1), found.group(2), PROSE
    for found in _PROSE_EN_ZH.finditer(text):
        yield found.group(3), found.group(2), GLOSSED


def _table_cells(line: str) -> list[str]:
    return [_LINK.sub(r"\1", cell).strip() for cell in fold_width(line).strip().strip("|").split("|")]


def read_term_table(text: str) -> Iterator[tuple[str, str, str]]:
    """(zh, en inside, how) from the rows of markdown tables whose header row names an English
    and a Chinese column (_TABLE_HEADS); a link cell gives its text; the abbreviation column's
    cell is a second English form. Other tables, and the other columns, are not read."""
    columns: dict[str, int] = {}
    header = True  # the next table row is a header
    for raw in text.splitlines():
        if not raw.strip().startswith("|"):
            columns, header = {}, True
            continue
        cells = _table_cells(raw)
        if header:
            names = [cell.lower() for cell in cells]
            columns = {role: names.index(head) for role, heads in _TABLE_HEADS.items() for head in heads if head in names}
            header = False
            continue
        if "en" not in columns or "zh" not in columns or all(re.fullmatch(r":?-*:?", cell) for cell in cells):
            continue
        zh, en = (cells[columns[role]] if columns[role] < len(cells) else "" for role in ("zh", "en"))
        abbr = cells[columns["abbr"]] if "abbr" in columns and columns["abbr"] < len(cells) else ""
        if has_han(zh) and en and not has_han(en):
            yield zh, ", ".join(part for part in (en, abbr) if part and not has_han(part)), LISTED


def prose_of(path: str, text: str) -> str:
    """The prose of a markdown, mdx, rst or notebook file."""
    return markdown_text(notebook_markdown(text) if path.endswith(".ipynb") else text)


# ---------------------------------------------------------------- translations kept unit by unit


def po_units(text: str) -> Iterator[tuple[str, str]]:
    """(msgid, msgstr) of each translated message of a gettext catalogue (polib); fuzzy, obsolete
    and untranslated messages are passed over."""
    try:
        import polib
    except ModuleNotFoundError:
        raise SourceError("the po reader needs polib (pip install 'papersift[crosslingual]')") from None
    try:
        catalogue = polib.pofile(text)
    except (OSError, ValueError) as exc:  # polib raises OSError on a malformed catalogue
        raise SourceError(f"not a gettext catalogue: {exc}") from None
    for entry in catalogue:
        if entry.msgstr and not entry.obsolete and "fuzzy" not in entry.flags:
            yield entry.msgid, entry.msgstr


def cheatsheet_units(text: str) -> Iterator[tuple[str, str]]:
    """(English, translation) of each numbered item of a cheatsheet translation template."""
    for found in _CHEATSHEET_ITEM.finditer(text):
        yield found.group(1).strip(), " ".join(found.group(2).split())


_UNITS = {"po": po_units, "cheatsheet": cheatsheet_units}


def translation_units(reader: str, text: str) -> list[tuple[str, str]]:
    """(Chinese, English) of each unit of a translation file (one of UNIT_READERS) with Chinese on
    exactly one side, markup dropped."""
    units = []
    for raw in _UNITS[reader](text):
        one, other = (" ".join(markdown_text(side).split()) for side in raw)
        if has_han(one) != has_han(other):
            units.append((one, other) if has_han(one) else (other, one))
    return units


def unit_terms(zh: str, en: str) -> Iterator[tuple[str, str]]:
    """The (Chinese, English) term pairs a unit may state: the whole unit (a term pair when each
    side is one term), the items of a bracketed list with as many items on each side
    ("[Regression, Classifier]" / "[回归，分类]"), a cheatsheet entry's head ("Sample space ― The
    set of ..." / "样本空间 - 一个实验的...")."""
    yield zh, en
    zh_list, en_list = re.fullmatch(r"\[(.*)\]", zh), re.fullmatch(r"\[(.*)\]", en)
    if zh_list and en_list:
        zh_items, en_items = _LIST_ITEMS.split(zh_list.group(1)), _LIST_ITEMS.split(en_list.group(1))
        if len(zh_items) == len(en_items):
            yield from zip(zh_items, en_items)
    if "―" in en:
        zh_head = _CHEATSHEET_HEAD.split(zh, maxsplit=1)[0]
        if zh_head != zh:
            yield zh_head, en.split("―", 1)[0]


def unit_candidates(units: Iterable[tuple[str, str]], source: str, path: str, convert=None) -> Iterator[Candidate]:
    """The candidate pairs of a translation file's (Chinese, English) units: each unit whose two
    sides are each one term (TRANSLATED), and the prose readings of its Chinese side."""
    for zh, en in units:
        for zh_part, en_part in unit_terms(zh, en):
            term, english = chinese_term(zh_part.strip(" 。：；！？.:;!?"), convert), clean_english(en_part)
            if term and english:
                yield Candidate(term, english, source, TRANSLATED, path)
        yield from prose_candidates(read_prose(zh), source, path, convert)


def dictionary_senses(translation: str) -> Iterator[tuple[str, str]]:
    """(domain tag or "", Chinese sense) of an ECDICT translation field ("\\n" between lines)."""
    for line in translation.replace("\\n", "\n").splitlines():
        head = _DICT_LINE.match(line)
        tag = (head.group(1) or "") if head else ""
        body = _DICT_NOTE.sub("", line[head.end():] if head else line)
        for sense in _DICT_SENSES.split(body):
            if sense and "…" not in sense and "..." not in sense and "~" not in sense:
                yield tag, sense


def read_ecdict(text: str, path: str, source: str) -> Iterator[Candidate]:
    """Candidates of a dictionary in ECDICT's CSV layout: each Chinese sense of 2+ characters with
    its English headword; DICTIONARY under a technical tag, DICTIONARY_GENERAL otherwise."""
    import csv
    import io

    rows = csv.reader(io.StringIO(text))
    header = next(rows, [])
    if "word" not in header or "translation" not in header:
        raise SourceError(f"source {source}: {path}: not an ECDICT table (needs the columns word, translation)")
    word_at, translation_at = header.index("word"), header.index("translation")
    for row in rows:
        if len(row) <= max(word_at, translation_at):
            continue
        english = clean_english(row[word_at])
        if not english or not has_han(row[translation_at]):
            continue
        seen = set()
        for tag, sense in dictionary_senses(row[translation_at]):
            term = chinese_term(sense)
            how = DICTIONARY if tag in TECHNICAL_TAGS else DICTIONARY_GENERAL
            if term and len(term) >= 2 and (term, how) not in seen and not re.search("[A-Za-z0-9]", term):
                seen.add((term, how))
                yield Candidate(term, english, source, how, path)


def read_cedict(text: str, path: str, source: str) -> Iterator[Candidate]:
    """Candidates of a dictionary in CC-CEDICT's layout: each English sense that is a term, with
    the simplified headword (2+ characters); DICTIONARY when the sense notes a technical field."""
    for line in text.splitlines():
        entry = _CEDICT_ENTRY.match(line)
        if not entry or line.startswith("#"):
            continue
        term = chinese_term(entry.group(2))
        if not term or len(term) < 2 or re.search("[A-Za-z0-9]", term):
            continue
        seen = set()
        for sense in entry.group(3).split("/"):
            if not sense or _CEDICT_NOT_SENSE.match(sense):
                continue
            notes = {note.strip().lower() for note in re.findall(r"\(([^()]*)\)", sense)}
            how = DICTIONARY if notes & CEDICT_TECHNICAL else DICTIONARY_GENERAL
            for part in re.split(r"\s*;\s*", re.sub(r"\s*\([^()]*\)\s*", " ", sense)):
                english = clean_english(part)
                if english and (english, how) not in seen:
                    seen.add((english, how))
                    yield Candidate(term, english, source, how, path)


def has_documents(source: Source) -> bool:
    """Whether a source has documents in both languages to align (parallel or unit readings)."""
    return any(reading.reader == "parallel" or reading.reader in UNIT_READERS for reading in source.readings)


def read_pairs(source: Source, sources: dict[str, Source], converter=None) -> Iterator[DocumentPair]:
    """The documents of a source's `parallel` readings with their English twins (a Chinese file
    without a twin is passed over), and each unit of its translation files (UNIT_READERS) as a
    document pair. `sources` finds the source holding the twins."""
    convert = converter if source.script == "traditional" else None
    for reading in source.readings:
        tree = source.tree()
        if reading.reader in UNIT_READERS:
            for path, text in tree.read_many(tree.matching(reading.paths)):
                for zh, en in _units_of(reading.reader, text, source, path):
                    yield DocumentPair(convert(zh) if convert else zh, en, source.key, path, source.key)
            continue
        if reading.reader != "parallel":
            continue
        twins = sources[reading.english_source].tree() if reading.english_source else tree
        chinese = tree.matching(reading.paths)
        english_of = {path: re.sub(reading.english_path[0], reading.english_path[1], path) for path in chinese}
        unchanged = sorted(path for path in chinese if english_of[path] == path and twins is tree)
        if unchanged:  # the document would be its own English twin: the rewrite does not match its name
            raise SourceError(f"source {source.key}: english_path {reading.english_path[0]} -> {reading.english_path[1]} "
                              f"leaves {unchanged[0]} unchanged (a parallel reading's twin must be another file)")
        english = dict(twins.read_many(sorted(set(english_of.values()) & set(twins.files()))))
        for path, text in tree.read_many([path for path in chinese if english_of[path] in english]):
            zh = prose_of(path, text)
            yield DocumentPair(convert(zh) if convert else zh, prose_of(english_of[path], english[english_of[path]]),
                               source.key, path, reading.english_source or source.key)


def _units_of(reader: str, text: str, source: Source, path: str) -> list[tuple[str, str]]:
    try:
        return translation_units(reader, text)
    except SourceError as exc:
        raise SourceError(f"source {source.key}: {path}: {exc}") from None


def prose_candidates(found: Iterable[tuple[str, str, str]], source: str, path: str, convert=None) -> Iterator[Candidate]:
    """Candidates of (Chinese text, English inside the parentheses, how) readings of a file."""
    for zh_text, inside, how in found:
        english = english_parts(inside)
        if not english:
            continue
        starts = (prose_terms(zh_text) if how == PROSE else (zh_text,))
        terms = tuple(term for term in (chinese_term(start, convert) for start in starts) if term)
        for en in english if terms else ():
            yield Candidate(terms[0], en, source, how, path, terms[1:])


def read_source(source: Source, converter=None) -> Iterator[Candidate]:
    """Every candidate pair of a source, in file order. `converter` turns a traditional-script
    source's terms into simplified (OpenCC t2s)."""
    tree = source.tree()
    convert = converter if source.script == "traditional" else None
    for reading in source.readings:
        if reading.reader == "parallel":
            continue
        for path, text in tree.read_many(tree.matching(reading.paths)):
            if reading.reader in DICTIONARY_READERS:
                yield from (read_ecdict if reading.reader == "ecdict" else read_cedict)(text, path, source.key)
                continue
            if reading.reader in UNIT_READERS:
                yield from unit_candidates(_units_of(reading.reader, text, source, path), source.key, path, convert)
                continue
            read = {"term-list": read_term_list, "term-table": read_term_table}.get(reading.reader, read_prose)
            found = read(notebook_markdown(text) if path.endswith(".ipynb") else text)
            yield from prose_candidates(found, source.key, path, convert)


# ---------------------------------------------------------------- the manifest


def load_manifest(path: Path, sources_dir: Path | None = None) -> list[Source]:
    """The sources a manifest lists; a location is relative to `sources_dir` (default: the
    manifest's folder), one starting with "./" to the manifest's folder (files kept beside it).
    Fails with one line naming the source and the problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path}: cannot read the source manifest: {exc}") from None
    base = sources_dir if sources_dir is not None else path.parent
    sources = []
    for number, entry in enumerate(data.get("source", []), start=1):
        name = entry.get("key", f"source #{number}")
        try:
            readings = tuple(Reading(item["reader"], tuple(item["paths"]), tuple(item.get("english_path", ("", ""))),
                                     item.get("english_source", "")) for item in entry["read"])
            source = Source(key=entry["key"], repo=entry["repo"], url=entry["url"], licence=entry["licence"],
                            licence_file=entry["licence_file"],
                            location=(path.parent if entry["location"].startswith("./") else base) / entry["location"],
                            commit=entry.get("commit", ""), script=entry.get("script", "simplified"),
                            readings=readings, title=entry.get("title", ""),
                            note=entry.get("note", ""))
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
    keys = {source.key for source in sources}
    for source in sources:
        for reading in source.readings:
            if reading.reader == "parallel" and (len(reading.english_path) != 2 or not reading.english_path[0]):
                raise SourceError(f"{path}: source {source.key}: a parallel reading needs english_path = [regex, replacement]")
            if reading.english_source and reading.english_source not in keys:
                raise SourceError(f"{path}: source {source.key}: english_source {reading.english_source!r} is not a source")
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
