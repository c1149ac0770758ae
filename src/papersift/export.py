"""Export papers as BibTeX, CSV or JSON: what the page's "copy BibTeX" and /api/export serve."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable, Iterable

import bibtexparser
import orjson
from bibtexparser.middlewares.parsestack import default_unparse_stack
from bibtexparser.model import Entry, Field

from papersift.record import Paper

EXPORT_FORMATS = ("bibtex", "json", "csv")
MEDIA_TYPES = {
    "bibtex": "application/x-bibtex; charset=utf-8",
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
}
FILE_SUFFIXES = {"bibtex": "bib", "json": "json", "csv": "csv"}
CSV_COLUMNS = (
    "id", "title", "authors", "venue", "year", "area", "subarea", "status",
    "keywords", "url", "pdf", "abstract",
)
# Spreadsheet programs run cells that start with these as formulas.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_LATEX_SPECIALS = re.compile(r"(?<!\\)([&%#])")
_STOPWORDS = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "towards", "toward"}


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def bibtex_key(paper: Paper) -> str:
    """`lastname2024word`: first author's last name, year, first meaningful title word."""
    last_name = _ascii_word(paper.authors[0].split()[-1]) if paper.authors and paper.authors[0].split() else ""
    title_words = [_ascii_word(word) for word in paper.title.split()]
    first_word = next((word for word in title_words if word and word not in _STOPWORDS), "")
    return f"{last_name or 'anon'}{paper.year or ''}{first_word}" or "paper"


def _bibtex_value(text: str) -> str:
    """Escape LaTeX specials outside of commands and keep braces balanced (a broken
    brace would swallow the rest of the .bib file)."""
    text = _LATEX_SPECIALS.sub(r"\\\1", text)
    if "{" not in text and "}" not in text:
        return text
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "").replace("}", "")
    return text


def _bibtex_entry(paper: Paper, key: str, extra: dict[str, str | None] | None = None) -> Entry:
    values: dict[str, str | None] = {
        "title": paper.title,
        "author": " and ".join(paper.authors),
        "booktitle": paper.venue,
        "year": str(paper.year) if paper.year else None,
        "url": paper.url,
        "pdf": paper.pdf,
        "keywords": ", ".join(paper.keywords),
        "abstract": paper.abstract,
        "note": paper.status,
        **(extra or {}),
    }
    fields = [Field(name, _bibtex_value(value)) for name, value in values.items() if value]
    entry_type = "inproceedings" if paper.venue else "misc"
    return Entry(entry_type, key, fields)


def to_bibtex(papers: Iterable[Paper], extra_fields: Callable[[Paper], dict[str, str | None]] | None = None) -> str:
    """One @inproceedings entry per paper; keys are made unique with a, b, c... suffixes.
    `extra_fields(paper)` adds or replaces fields (the library's tags and notes; None drops one)."""
    library = bibtexparser.Library()
    used_keys: dict[str, int] = {}
    for paper in papers:
        key = bibtex_key(paper)
        seen = used_keys.get(key, 0)
        used_keys[key] = seen + 1
        if seen:
            key = f"{key}{_suffix(seen)}"
        library.add(_bibtex_entry(paper, key, extra_fields(paper) if extra_fields else None))
    # The library is ours alone, so the writer may enclose values in place (no deep copy).
    return bibtexparser.write_string(library, unparse_stack=default_unparse_stack(allow_inplace_modification=True))


def _suffix(index: int) -> str:
    letters = ""
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("a") + remainder) + letters
    return letters


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = "; ".join(value)
    text = str(value)
    if text.startswith(_FORMULA_PREFIXES):
        text = "'" + text
    return text


def to_csv(papers: Iterable[Paper]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for paper in papers:
        writer.writerow([_csv_cell(getattr(paper, column)) for column in CSV_COLUMNS])
    return buffer.getvalue()


def to_json(papers: Iterable[Paper]) -> str:
    records = []
    for paper in papers:
        record = paper.to_dict()
        record.pop("source", None)
        records.append(record)
    return orjson.dumps(records, option=orjson.OPT_INDENT_2).decode()


def export_papers(papers: Iterable[Paper], export_format: str) -> str:
    writers = {"bibtex": to_bibtex, "csv": to_csv, "json": to_json}
    if export_format not in writers:
        raise ValueError(f"unknown export format {export_format!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return writers[export_format](papers)
