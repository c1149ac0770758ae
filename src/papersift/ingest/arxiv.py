"""arXiv: the API's Atom feed (`/api/query`, read with feedparser) and OAI-PMH `ListRecords`
pages in the `arXiv` metadata format (read with xml.etree).

Both become the same record: id `arXiv-<year>-<arXiv id>` (version dropped), venue 'arXiv',
year of the first version, the categories as keywords, abs/pdf links without version.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import feedparser

from papersift.ingest.base import SourceError, SourceRecord, read_bytes

VENUE = "arXiv"
VERSION_SUFFIX = re.compile(r"v\d+$")
ABS_URL = re.compile(r"arxiv\.org/abs/(.+)$")
OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV_FORMAT = "{http://arxiv.org/OAI/arXiv/}"


def arxiv_record(arxiv_id: str, title: object, abstract: object, authors: list, year: int | None,
                 categories: list[str], source: str) -> dict:
    arxiv_id = VERSION_SUFFIX.sub("", arxiv_id.strip())
    return {
        "id": f"{VENUE}-{year or 0}-{arxiv_id}",
        "title": title,
        "authors": authors,
        "abstract": abstract,
        "venue": VENUE,
        "year": year,
        "keywords": categories,
        "url": f"https://arxiv.org/abs/{arxiv_id}",
        "pdf": f"https://arxiv.org/pdf/{arxiv_id}",
        "source": source,
    }


# -- Atom (arXiv API) ---------------------------------------------------------------------

def read_arxiv_atom(path: Path) -> Iterator[SourceRecord]:
    raw = read_bytes(path)
    if not raw.strip():
        raise SourceError("empty file: no records")
    feed = feedparser.parse(raw)
    if feed.bozo and not feed.entries:
        raise SourceError(f"not a readable Atom feed: {feed.get('bozo_exception')}")
    for number, entry in enumerate(feed.entries, start=1):
        yield _atom_record(str(path), number, entry)


def _atom_record(file: str, number: int, entry) -> SourceRecord:
    entry_id = entry.get("id", "")
    location = f"entry {number}"
    if "/api/errors" in entry_id:  # the API reports bad queries as an entry titled 'Error'
        return SourceRecord(file, location, error=f"arXiv API error: {entry.get('summary', entry_id)}")
    match = ABS_URL.search(entry_id)
    if not match:
        return SourceRecord(file, location, error=f"entry id is not an arXiv abs URL: {entry_id!r:.100}")
    location = f"entry {number} ({match.group(1)})"
    published = entry.get("published_parsed")
    categories = [tag.get("term") for tag in entry.get("tags", []) if tag.get("term")]
    authors = [author.get("name") for author in entry.get("authors", []) if author.get("name")]
    data = arxiv_record(match.group(1), entry.get("title"), entry.get("summary"), authors,
                        published.tm_year if published else None, categories, f"arxiv-api:{Path(file).name}")
    return SourceRecord(file, location, data=data)


# -- OAI-PMH ListRecords, metadataPrefix=arXiv ---------------------------------------------

def read_oai_pmh(path: Path) -> Iterator[SourceRecord]:
    root = parse_oai_page(read_bytes(path))
    for number, record in enumerate(oai_records(root), start=1):
        yield _oai_record(str(path), number, record)


def parse_oai_page(raw: bytes) -> ElementTree.Element:
    """The page's root element; an OAI-PMH <error> (other than noRecordsMatch) raises SourceError."""
    if not raw.strip():
        raise SourceError("empty file: no records")
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as exc:
        raise SourceError(f"broken XML: {exc}") from exc
    if root.tag != f"{OAI}OAI-PMH":
        raise SourceError(f"not an OAI-PMH response (root element {root.tag})")
    for error in root.findall(f"{OAI}error"):
        if error.get("code") != "noRecordsMatch":
            raise SourceError(f"OAI-PMH error {error.get('code')}: {(error.text or '').strip()}")
    return root


def oai_records(root: ElementTree.Element) -> list[ElementTree.Element]:
    return root.findall(f"{OAI}ListRecords/{OAI}record") + root.findall(f"{OAI}GetRecord/{OAI}record")


def resumption_token(root: ElementTree.Element) -> str | None:
    """The cursor for the next page; empty or missing on the last page."""
    token = root.find(f"{OAI}ListRecords/{OAI}resumptionToken")
    return (token.text or "").strip() or None if token is not None else None


def _oai_record(file: str, number: int, record: ElementTree.Element) -> SourceRecord:
    header = record.find(f"{OAI}header")
    identifier = (header.findtext(f"{OAI}identifier") or "").strip() if header is not None else ""
    location = f"record {number} ({identifier})" if identifier else f"record {number}"
    if header is not None and header.get("status") == "deleted":
        return SourceRecord(file, location, skipped="deleted record")
    metadata = record.find(f"{OAI}metadata/{ARXIV_FORMAT}arXiv")
    if metadata is None:
        return SourceRecord(file, location, error="no <arXiv> metadata (fetch with metadataPrefix=arXiv)")
    arxiv_id = (metadata.findtext(f"{ARXIV_FORMAT}id") or "").strip()
    if not arxiv_id:
        return SourceRecord(file, location, error="record has no arXiv <id>")
    created = (metadata.findtext(f"{ARXIV_FORMAT}created") or "").strip()
    year = int(created[:4]) if re.match(r"\d{4}-", created) else None
    authors = [_author_name(author) for author in metadata.findall(f"{ARXIV_FORMAT}authors/{ARXIV_FORMAT}author")]
    categories = (metadata.findtext(f"{ARXIV_FORMAT}categories") or "").split()
    data = arxiv_record(arxiv_id, metadata.findtext(f"{ARXIV_FORMAT}title"), metadata.findtext(f"{ARXIV_FORMAT}abstract"),
                        [name for name in authors if name], year, categories, f"arxiv-oai:{Path(file).name}")
    return SourceRecord(file, location, data=data)


def _author_name(author: ElementTree.Element) -> str:
    parts = (author.findtext(f"{ARXIV_FORMAT}{part}") for part in ("forenames", "keyname", "suffix"))
    return " ".join(part.strip() for part in parts if part and part.strip())
