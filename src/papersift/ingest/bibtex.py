"""BibTeX (.bib) via bibtexparser v2: LaTeX decoded outside math, 'Last, First' names turned around.

Entries carry no paper id: an OpenReview forum URL gives `<VENUE>-<year>-<forum id>` (the id
the conference listings use), otherwise `make_paper_id` (stable for the same title).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import bibtexparser
from bibtexparser import middlewares
from bibtexparser.model import Block
from pylatexenc.latex2text import LatexNodes2Text

from papersift.export import balanced_braces
from papersift.ingest.base import SourceRecord, decode_document, read_bytes
from papersift.ingest.fields import KNOWN_VENUES, OPENREVIEW_FORUM, canonical_venue, clean_url, pdf_from_landing
from papersift.record import make_paper_id

# Phrases in booktitle/journal that name the venues the corpus knows.
VENUE_PHRASES = (
    ("neural information processing systems", "NeurIPS"),
    ("international conference on machine learning", "ICML"),
    ("international conference on learning representations", "ICLR"),
    ("artificial intelligence and statistics", "AISTATS"),
    ("conference on learning theory", "COLT"),
    ("uncertainty in artificial intelligence", "UAI"),
    ("conference on language modeling", "COLM"),
)
MAX_VENUE_CHARS = 100

# Failed blocks are reported per record by this reader; bibtexparser's own warnings would repeat them.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)


@functools.cache
def _decoder() -> LatexNodes2Text:
    # Math ($...$) stays verbatim: titles keep their LaTeX formulas, as the corpus does.
    return LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)


def decode_latex(text: str) -> str:
    """`text` as it reads once written to a .bib field and read back: braces balanced as the
    export writes them, then LaTeX outside math decoded as the reader decodes it (Schr\\"{o}dinger
    -> Schrödinger, \\& -> &, unknown macros dropped); text without TeX's special characters as it is."""
    if not any(char in text for char in "\\{}$%"):
        return text
    return _decoder().latex_to_text(balanced_braces(text))


class _DropFields(middlewares.BlockMiddleware):
    """Removes fields a reader does not use before anything decodes them (decoding an abstract's
    LaTeX was most of a library import's time)."""

    def __init__(self, fields: frozenset[str]):
        super().__init__(allow_inplace_modification=True)
        self.fields = fields

    def transform_entry(self, entry, library):
        for key in [key for key in entry.fields_dict if key.lower() in self.fields]:
            entry.pop(key)
        return entry


def _parse_stack(skip_fields: frozenset[str] = frozenset()) -> list:
    return [
        *([_DropFields(skip_fields)] if skip_fields else []),
        middlewares.LatexDecodingMiddleware(decoder=_decoder()),
        middlewares.SeparateCoAuthors(),
        middlewares.SplitNameParts(),
        middlewares.MergeNameParts(style="first"),
    ]


def parse_bibtex(text: str, skip_fields: frozenset[str] = frozenset()) -> bibtexparser.Library:
    """Entries with LaTeX decoded and names as 'First Last' (ingest, and the library's import),
    without the fields named in `skip_fields` (lower case)."""
    return bibtexparser.parse_string(text, append_middleware=_parse_stack(skip_fields))


def entry_record(entry, source: str) -> dict:
    """One parsed entry in the corpus schema (id made up when the entry names none)."""
    return _to_record(entry, source)


def read_bibtex(path: Path) -> Iterator[SourceRecord]:
    text = decode_document(read_bytes(path))
    library = parse_bibtex(text)
    problems = sorted(library.failed_blocks, key=lambda block: _line(block) or 0)
    for block in problems:
        yield SourceRecord(str(path), f"line {_line(block)}", error=f"unparsable BibTeX: {_first_line(block.error)}")
    for entry in library.entries:
        location = f"entry {entry.key} (line {_line(entry)})"
        yield SourceRecord(str(path), location, data=_to_record(entry, str(path)))


def _line(block: Block) -> int | None:
    """The 1-based line a block starts on (bibtexparser counts from 0; blocks it parsed always have one)."""
    return None if block.start_line is None else block.start_line + 1


def _first_line(error: object) -> str:
    # bibtexparser's BlockAbortedException keeps its message in `abort_reason`, not in str().
    message = str(getattr(error, "abort_reason", "") or error or "").strip()
    return message.splitlines()[0] if message else "syntax error"


def _to_record(entry, source: str) -> dict:
    fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
    venue = _venue(fields)
    year = fields.get("year")
    url = clean_url(_string(fields.get("url")))
    pdf = _string(fields.get("pdf"))
    if url and url.lower().endswith(".pdf"):  # NeurIPS proceedings put the PDF link in `url`
        url, pdf = None, pdf or url
    forum = OPENREVIEW_FORUM.match(url or "")
    known_venue = venue if venue in KNOWN_VENUES else None
    title = fields.get("title")
    paper_id: str | None
    if forum and venue and year:
        paper_id = f"{venue}-{year}-{forum.group(1)}"
    else:  # ids keep to known venue names (a journal's full name makes a poor id prefix)
        paper_id = make_paper_id(known_venue, year, title) if isinstance(title, str) and title.strip() else None
    return {
        "id": paper_id,
        "title": title,
        "authors": fields.get("author") or [],
        "abstract": fields.get("abstract"),
        "venue": venue,
        "year": year,
        "keywords": _keywords(fields.get("keywords")),
        "url": url,
        "pdf": clean_url(pdf) or pdf_from_landing(url),
        "source": source,
    }


def _venue(fields: dict) -> str | None:
    named = canonical_venue(_string(fields.get("venue")))
    if named:
        return named
    return venue_from_container(_string(fields.get("booktitle")) or _string(fields.get("journal")))


def venue_from_container(container: str | None) -> str | None:
    """The venue a proceedings or journal title names: the corpus's short name when it is one
    of theirs ("Advances in Neural Information Processing Systems 33" -> NeurIPS), else the
    title itself when short enough to be a venue."""
    container = container.strip() if container else None
    if not container:
        return None
    lowered = container.lower()
    for phrase, venue in VENUE_PHRASES:
        if phrase in lowered:
            return venue
    named = canonical_venue(container)
    return named if named and len(named) <= MAX_VENUE_CHARS else None


def _keywords(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in re.split(r"[;,]", value) if part.strip()]
    return value


def _string(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None
