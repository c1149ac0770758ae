"""The library in and out: export as BibTeX, RIS, CSL-JSON or JSON ("download our data"),
with tags and notes; import BibTeX, RIS, CSL-JSON (a Zotero export) or our JSON, matching
each entry to a stored paper (matching.py) and reporting those that match none.

Where each format keeps the library's own data:

| | tags | note | like / not interested, reading state | papersift id |
|---|---|---|---|---|
| BibTeX | `keywords` | `annote` | `papersift_rating`, `papersift_reading` | `papersift_id` |
| RIS | `KW` | `N1` | `C1`, `C2` | `AN` (`ID` is the citation key) |
| CSL-JSON | `categories` | `note` | `custom.papersift_rating`, `custom.papersift_reading` | `custom.papersift_id` (`id`: the key) |
| JSON | everything, with the paper's stored record |

The writers are those of the page's and the API's exports (export.py), given the library's
fields; an older export with the papersift id in RIS `ID` / CSL `id` still imports.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import orjson
import rispy

from papersift import export
from papersift.export import to_bibtex
from papersift.ingest.bibtex import entry_record, parse_bibtex
from papersift.ingest.citations import csl_year, ris_title, ris_year
from papersift.ingest.fields import parse_year
from papersift.library.entries import RATINGS, EntryChange, Library, LibraryEntry
from papersift.library.matching import ImportedEntry, MatchResult, PaperMatcher
from papersift.record import Paper

FORMATS = ("bibtex", "ris", "csl-json", "json")
MEDIA_TYPES = {"bibtex": "application/x-bibtex; charset=utf-8", "ris": "application/x-research-info-systems",
               "csl-json": "application/vnd.citationstyles.csl+json", "json": "application/json"}
SUFFIXES = {"bibtex": "bib", "ris": "ris", "csl-json": "csl.json", "json": "json"}
RATING_NAMES = {value: name for name, value in RATINGS.items()}
JSON_FORMAT = "papersift-library"
MAX_IMPORT_ENTRIES = 10_000  # ~1 ms of parsing each (BibTeX, unloaded machine ~0.5 ms): an import costs seconds
MAX_IMPORT_BYTES = 8 * 1024 * 1024  # one file sent to the server (the page's form and /api/library/import)
# Where an entry starts: '@type{' of BibTeX (not @string / @preamble / @comment), RIS's 'TY  -'.
_ENTRY_START = re.compile(rb"(?:^|\n)[ \t]*(?:@(?!(?:string|preamble|comment)\b)[A-Za-z]+[ \t]*[{(]|TY  -)", re.IGNORECASE)
_CARRY = 64  # bytes kept between chunks, so a start split across two chunks is counted once
# Fields an import never reads: dropped before their LaTeX is decoded (an abstract's decoding
# was ~90% of an import's time; a name list is decoded and split for nothing).
UNUSED_BIBTEX_FIELDS = frozenset({"abstract", "author", "editor", "file", "bibsource", "biburl", "timestamp",
                                  "publisher", "pages", "volume", "number", "address", "isbn", "issn"})


class LibraryFormatError(ValueError):
    """A file that cannot be read as the format; the message names the place and problem."""


# -- export ------------------------------------------------------------------------
def _library_papers(library: Library, tag: str | None = None) -> list[tuple[LibraryEntry, Paper]]:
    entries = library.entries(tag=tag)
    papers = library.store.get_many([entry.paper_id for entry in entries])
    return [(entry, papers[entry.paper_id]) for entry in entries if entry.paper_id in papers]


def _rating_name(entry: LibraryEntry) -> str | None:
    return RATING_NAMES[entry.rating] if entry.rating else None


def to_library_bibtex(pairs: list[tuple[LibraryEntry, Paper]]) -> str:
    by_id = {paper.id: entry for entry, paper in pairs}

    def fields(paper: Paper) -> dict[str, str | None]:
        entry = by_id[paper.id]
        return {"keywords": ", ".join(entry.tags) or None, "annote": entry.note, "papersift_id": paper.id,
                "papersift_rating": _rating_name(entry), "papersift_reading": entry.reading}

    return to_bibtex([paper for _, paper in pairs], fields)


def _by_paper(pairs: list[tuple[LibraryEntry, Paper]]) -> dict[str, LibraryEntry]:
    return {paper.id: entry for entry, paper in pairs}


def to_ris(pairs: list[tuple[LibraryEntry, Paper]]) -> str:
    """export.to_ris (ID the citation key, AN the papersift id) with the library's fields."""
    by_id = _by_paper(pairs)

    def fields(paper: Paper) -> dict:
        entry = by_id[paper.id]
        return {"keywords": list(entry.tags), "notes": [entry.note] if entry.note else [],
                "custom1": _rating_name(entry), "custom2": entry.reading}

    return export.to_ris([paper for _, paper in pairs], fields)


def to_csl_json(pairs: list[tuple[LibraryEntry, Paper]]) -> str:
    """export.to_csl_json (custom.papersift_id the papersift id) with the library's fields."""
    by_id = _by_paper(pairs)

    def fields(paper: Paper) -> dict:
        entry = by_id[paper.id]
        return {"categories": list(entry.tags), "note": entry.note,
                "custom": {key: value for key, value in (("papersift_rating", _rating_name(entry)),
                                                         ("papersift_reading", entry.reading)) if value}}

    return export.to_csl_json([paper for _, paper in pairs], fields)


def to_library_json(pairs: list[tuple[LibraryEntry, Paper]], library: Library) -> str:
    entries = []
    for entry, paper in pairs:
        record = paper.to_dict()
        record.pop("source", None)
        entries.append({**entry.to_dict(), "paper": record})
    data = {"format": JSON_FORMAT, "version": 1, "user": library.user_id, "exported_at": time.time(),
            "tags": library.tags(), "entries": entries}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


def export_library(library: Library, export_format: str, tag: str | None = None) -> str:
    """The whole library (or one tag's papers) in one of FORMATS."""
    if export_format not in FORMATS:
        raise ValueError(f"unknown library format {export_format!r}; choose one of {', '.join(FORMATS)}")
    pairs = _library_papers(library, tag)
    if export_format == "bibtex":
        return to_library_bibtex(pairs)
    if export_format == "ris":
        return to_ris(pairs)
    if export_format == "csl-json":
        return to_csl_json(pairs)
    return to_library_json(pairs, library)


# -- import ------------------------------------------------------------------------
def detect_format(text: str, filename: str | None = None) -> str:
    name = (filename or "").lower()
    for suffix, found in ((".bib", "bibtex"), (".ris", "ris"), (".csl.json", "csl-json")):
        if name.endswith(suffix):
            return found
    start = text.lstrip()[:200]
    if start.startswith("@"):
        return "bibtex"
    if re.search(r"^\s*TY  - ", text[:4000], re.MULTILINE):
        return "ris"
    if start.startswith("["):
        return "csl-json"
    if start.startswith("{"):
        return "json"
    raise LibraryFormatError("cannot tell the format: not BibTeX (@...), RIS (TY  -), CSL-JSON ([...]) or JSON ({...});"
                       " name it with --format")


def _rating(value: object) -> int | None:
    return RATINGS.get(str(value).strip().lower()) if value else None


def _split_tags(value: object) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)):
        parts = [str(item) for item in value]
    else:
        parts = str(value or "").replace(";", ",").split(",")
    return tuple(dict.fromkeys(part.strip() for part in parts if part.strip()))


def _text(value: object) -> str | None:
    if isinstance(value, list):
        value = "\n".join(str(item) for item in value if item)
    return str(value).strip() or None if value is not None else None


def read_bibtex_entries(text: str) -> list[ImportedEntry]:
    library = parse_bibtex(text, skip_fields=UNUSED_BIBTEX_FIELDS)
    if library.failed_blocks and not library.entries:
        block = library.failed_blocks[0]
        raise LibraryFormatError(f"line {(block.start_line or 0) + 1}: unparsable BibTeX")
    entries = []
    for entry in library.entries:
        fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
        record = entry_record(entry, "import")
        links = [fields.get(name) for name in ("doi", "url", "eprint", "pdf", "arxiv", "openreview")]
        entries.append(ImportedEntry(
            label=f"entry {entry.key} (line {(entry.start_line or 0) + 1})", title=_text(record.get("title")),
            year=parse_year(record.get("year")), venue=record.get("venue"),
            paper_ids=tuple(filter(None, [_text(fields.get("papersift_id"))])),
            links=tuple(str(link) for link in links if link), tags=_split_tags(fields.get("keywords")),
            note=_text(fields.get("annote")), rating=_rating(fields.get("papersift_rating")),
            reading=_text(fields.get("papersift_reading"))))
    return entries


def read_ris_entries(text: str) -> list[ImportedEntry]:
    try:
        records = rispy.loads(text, skip_unknown_tags=True)
    except (OSError, ValueError) as problem:  # rispy raises OSError for a file without a TY line
        raise LibraryFormatError(f"unreadable RIS: {problem}") from None
    entries = []
    for number, record in enumerate(records, 1):
        title = _text(ris_title(record))
        paper_id = _text(record.get("accession_number") or record.get("id"))
        links = [*(record.get("urls") or []), record.get("doi")]
        entries.append(ImportedEntry(
            label=f"record {number} ({paper_id or (title or '')[:60]!r})", title=title,
            year=ris_year(record),
            venue=_text(record.get("secondary_title")), paper_ids=(paper_id,) if paper_id else (),
            links=tuple(str(link) for link in links if link), tags=_split_tags(record.get("keywords")),
            note=_text(record.get("notes")), rating=_rating(record.get("custom1")),
            reading=_text(record.get("custom2"))))
    return entries


def read_csl_entries(items: object) -> list[ImportedEntry]:
    if not isinstance(items, list):
        raise LibraryFormatError("CSL-JSON must be a JSON array of items")
    entries = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise LibraryFormatError(f"item {number}: not a JSON object")
        custom = item["custom"] if isinstance(item.get("custom"), dict) else {}
        paper_id = _text(custom.get("papersift_id") or item.get("id"))
        title = _text(item.get("title"))
        entries.append(ImportedEntry(
            label=f"item {number} ({paper_id or (title or '')[:60]!r})", title=title, year=csl_year(item),
            venue=_text(item.get("container-title")), paper_ids=(paper_id,) if paper_id else (),
            links=tuple(str(link) for link in (item.get("DOI"), item.get("URL")) if link),
            tags=_split_tags(item.get("categories") or item.get("keyword")), note=_text(item.get("note")),
            rating=_rating(custom.get("papersift_rating")), reading=_text(custom.get("papersift_reading"))))
    return entries


def read_json_entries(data: object) -> list[ImportedEntry]:
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
        raise LibraryFormatError(f"not a papersift library export (no \"format\": \"{JSON_FORMAT}\")")
    entries = []
    for number, item in enumerate(data.get("entries") or [], 1):
        if not isinstance(item, dict):
            raise LibraryFormatError(f"entry {number}: not a JSON object")
        paper = item["paper"] if isinstance(item.get("paper"), dict) else {}
        paper_id = _text(item.get("paper_id"))
        rating = item.get("rating")
        entries.append(ImportedEntry(
            label=f"entry {number} ({paper_id!r})", title=_text(paper.get("title")), year=parse_year(paper.get("year")),
            venue=_text(paper.get("venue")), paper_ids=(paper_id,) if paper_id else (),
            links=tuple(str(link) for link in (paper.get("url"), paper.get("pdf")) if link),
            tags=_split_tags(item.get("tags")), note=_text(item.get("note")),
            rating=rating if rating in (-1, 0, 1) else None, reading=_text(item.get("reading")),
            added_at=item.get("added_at") if isinstance(item.get("added_at"), (int, float)) else None))
    return entries


class ImportBudget:
    """Counts an import's bytes and entry starts as its chunks arrive (a body being received, a
    file being read), so a file over either bound is refused before it is parsed, while most of
    it has not even been read: LibraryFormatError at the first chunk past a bound."""

    def __init__(self, name: str = "the file", max_bytes: int | None = MAX_IMPORT_BYTES, max_entries: int | None = None):
        self.name, self.max_bytes = name, max_bytes
        self.max_entries = MAX_IMPORT_ENTRIES if max_entries is None else max_entries
        self.bytes = self.entries = 0
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        self.bytes += len(chunk)
        if self.max_bytes is not None and self.bytes > self.max_bytes:
            raise LibraryFormatError(f"{self.name} is over the import limit of {self.max_bytes:,} bytes")
        window = self._tail + chunk
        self.entries += len(_ENTRY_START.findall(window)) - len(_ENTRY_START.findall(self._tail))
        self._tail = window[-_CARRY:]
        if self.entries > self.max_entries:
            raise LibraryFormatError(f"{self.name} has over {self.max_entries:,} entries, the most one import takes")


def read_entries(text: str, import_format: str) -> list[ImportedEntry]:
    """The entries of a file in one of FORMATS (LibraryFormatError when it cannot be read at all)."""
    if import_format == "bibtex":
        entries = read_bibtex_entries(text)
    elif import_format == "ris":
        entries = read_ris_entries(text)
    elif import_format in ("csl-json", "json"):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as problem:
            raise LibraryFormatError(f"not valid JSON: {problem}") from None
        entries = read_csl_entries(data) if import_format == "csl-json" else read_json_entries(data)
    else:
        raise LibraryFormatError(f"unknown library format {import_format!r}; choose one of {', '.join(FORMATS)}")
    if len(entries) > MAX_IMPORT_ENTRIES:
        raise LibraryFormatError(f"at most {MAX_IMPORT_ENTRIES:,} entries per import, got {len(entries):,}")
    return entries


@dataclass
class ImportSummary:
    format: str
    entries: int
    matched: int
    unmatched: list[str]  # one line per entry: which, and why
    by_rule: dict[str, int]

    def to_dict(self) -> dict:
        return {"format": self.format, "entries": self.entries, "matched": self.matched,
                "unmatched": len(self.unmatched), "by_rule": self.by_rule, "problems": self.unmatched}


def import_library(library: Library, text: str, import_format: str | None = None, filename: str | None = None,
                   tag: str | None = None, dry_run: bool = False) -> ImportSummary:
    """Read a file, match its entries, and merge the matched ones into the library in one
    transaction (their tags added, plus `tag` when given). Unmatched entries are reported, not stored."""
    import_format = import_format or detect_format(text, filename)
    entries = read_entries(text, import_format)
    result: MatchResult = PaperMatcher(library.store).match_all(entries)
    changes: dict[str, EntryChange] = {}
    for entry, paper_id, _ in result.matched:
        tags = (*entry.tags, tag) if tag else entry.tags
        earlier = changes.get(paper_id)
        if earlier is not None:  # two entries of one paper: their tags together, the later values win
            tags = (*earlier.tags, *tags)
        changes[paper_id] = EntryChange(paper_id, tuple(dict.fromkeys(tags)), entry.rating, entry.note,
                                        entry.reading if entry.reading in ("to-read", "read") else None,
                                        entry.added_at)
    if not dry_run:
        library.apply(changes.values())
    by_rule: dict[str, int] = {}
    for _, _, rule in result.matched:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    return ImportSummary(import_format, len(entries), len(result.matched), result.report_lines(), by_rule)

