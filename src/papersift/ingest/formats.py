"""Which reader handles a file: by explicit name, by extension, then by sniffing content."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from papersift.ingest.airas import read_airas
from papersift.ingest.arxiv import read_arxiv_atom, read_oai_pmh
from papersift.ingest.base import DECOMPRESSION_ERRORS, SourceError, SourceRecord, base_name, open_source
from papersift.ingest.bibtex import read_bibtex
from papersift.ingest.citations import read_csl_json, read_ris
from papersift.ingest.csv_reader import read_csv
from papersift.ingest.jsonl import read_jsonl
from papersift.ingest.openreview import read_openreview
from papersift.ingest.paperlists import read_paperlists

Reader = Callable[[Path], Iterator[SourceRecord]]

READERS: dict[str, Reader] = {
    "jsonl": read_jsonl,
    "paperlists": read_paperlists,
    "airas": read_airas,
    "bibtex": read_bibtex,
    "csv": read_csv,
    "openreview": read_openreview,
    "arxiv": read_arxiv_atom,
    "oai-pmh": read_oai_pmh,
    "ris": read_ris,
    "csl-json": read_csl_json,
}

EXTENSIONS = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".bib": "bibtex", ".bibtex": "bibtex",
    ".csv": "csv", ".tsv": "csv", ".atom": "arxiv", ".ris": "ris",
}

SNIFF_BYTES = 64 * 1024
OPENREVIEW_CONTENT = re.compile(r'"content"\s*:\s*\{\s*"[^"]+"\s*:\s*\{\s*"value"')
BIBTEX_ENTRY = re.compile(r"^\s*@\w+\s*[{(]", re.MULTILINE)
# CSL-JSON: an item's "type" is one of CSL's types, and items name their date "issued" or
# their names "family"/"given"; papersift's own exports add "citation-key".
CSL_ITEM = re.compile(r'"citation-key"\s*:|"(issued|container-title)"\s*:\s*[{"]|"family"\s*:\s*"')
RIS_START = re.compile(r"^TY  - ", re.MULTILINE)


def register(name: str, reader: Reader, extensions: tuple[str, ...] = ()) -> None:
    READERS[name] = reader
    for extension in extensions:
        EXTENSIONS[extension] = name


def detect_format(path: Path) -> str:
    suffix = Path(base_name(path)).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    head = _head(path)
    for sniff in SNIFFERS:
        detected = sniff(head)
        if detected:
            return detected
    raise SourceError(f"cannot tell the format of {path.name}; pass --format ({', '.join(sorted(READERS))})")


def _head(path: Path) -> str:
    """The first bytes of the (gunzipped) file as text, for sniffing."""
    try:
        with open_source(path) as handle:
            raw = handle.read(SNIFF_BYTES)
    except DECOMPRESSION_ERRORS as exc:
        raise SourceError(f"corrupt or truncated gzip: {exc}") from exc
    if not raw.strip():
        raise SourceError("empty file: no records")
    return raw.decode("utf-8-sig", errors="replace").lstrip()


def sniff_xml(head: str) -> str | None:
    if not head.startswith("<"):
        return None
    if "OAI-PMH" in head:
        return "oai-pmh"
    if "http://www.w3.org/2005/Atom" in head:
        return "arxiv"
    return None


def sniff_json(head: str) -> str | None:
    if not head.startswith(("{", "[")):
        return None
    first_line = head.split("\n", 1)[0]
    try:
        first = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        first = None
    if isinstance(first, dict):  # one complete object on the first line: JSON Lines or a one-line response
        return "openreview" if "notes" in first else "jsonl"
    if '"invitations"' in head or '"venueid"' in head or OPENREVIEW_CONTENT.search(head):
        return "openreview"
    if '"conference"' in head and '"paper_url"' in head:
        return "airas"
    if CSL_ITEM.search(head):  # before paperlists: CSL-JSON items have an "author" too
        return "csl-json"
    if '"site"' in head or '"author"' in head:
        return "paperlists"
    return None


def sniff_bibtex(head: str) -> str | None:
    return "bibtex" if BIBTEX_ENTRY.search(head[:4096]) else None


def sniff_ris(head: str) -> str | None:
    return "ris" if RIS_START.match(head) else None


def sniff_csv(head: str) -> str | None:
    header = head.split("\n", 1)[0].lower()
    return "csv" if re.search(r"(^|[,\t])\"?title\"?([,\t]|$)", header) else None


SNIFFERS: list[Callable[[str], str | None]] = [sniff_xml, sniff_json, sniff_ris, sniff_bibtex, sniff_csv]


def reader_for(path: Path, format_name: str | None = None) -> Reader:
    name = format_name or detect_format(path)
    if name not in READERS:
        raise SourceError(f"unknown format '{name}' (known: {', '.join(sorted(READERS))})")
    return READERS[name]
