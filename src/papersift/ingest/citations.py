"""Reference-manager exports: RIS (rispy) and CSL-JSON, the formats Zotero, Mendeley and
EndNote write and papersift exports (export.py), read as paper records.

An entry's paper id is, in order: the papersift id papersift's own exports carry (RIS `AN`,
CSL `custom.papersift_id`), `<VENUE>-<year>-<forum>` for an OpenReview forum URL (the id the
conference listings use, as the BibTeX reader does), else `make_paper_id` (stable for the
same title). So a result set exported by papersift and ingested again gives the same papers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import rispy

from papersift.ingest.base import SourceError, SourceRecord, decode_document, read_bytes
from papersift.ingest.bibtex import venue_from_container
from papersift.ingest.fields import KNOWN_VENUES, OPENREVIEW_FORUM, clean_url, parse_year, pdf_from_landing
from papersift.record import make_paper_id

RIS_TITLE_TAGS = ("title", "primary_title", "translated_title")
RIS_VENUE_TAGS = ("secondary_title", "journal_name", "alternate_title3", "alternate_title1", "tertiary_title")
RIS_AUTHOR_TAGS = ("authors", "first_authors")


def read_ris(path: Path) -> Iterator[SourceRecord]:
    text = decode_document(read_bytes(path))
    try:
        entries = rispy.loads(text, skip_unknown_tags=True)
    except (OSError, ValueError) as exc:  # rispy raises OSError for text that is not RIS
        raise SourceError(f"not RIS: {exc}") from exc
    for number, entry in enumerate(entries, 1):
        yield SourceRecord(str(path), f"record {number}", data=_ris_record(entry, str(path)))


def ris_title(entry: dict) -> str | None:
    return next((entry[tag] for tag in RIS_TITLE_TAGS if entry.get(tag)), None)


def ris_year(entry: dict) -> int | None:
    return parse_year(entry.get("year") or entry.get("publication_year") or entry.get("date"))


def csl_year(item: dict) -> int | None:
    issued = item.get("issued")
    if not isinstance(issued, dict):
        return parse_year(issued)
    parts = issued.get("date-parts")
    return parse_year(parts[0][0] if parts and parts[0] else issued.get("raw"))


def _ris_record(entry: dict, source: str) -> dict:
    title = ris_title(entry)
    container = next((entry[tag] for tag in RIS_VENUE_TAGS if entry.get(tag)), None)
    urls = entry.get("urls") or []
    year = ris_year(entry)
    names: list[str] = next((entry[tag] for tag in RIS_AUTHOR_TAGS if entry.get(tag)), [])
    return _record(entry.get("accession_number"), title, [_given_first(name) for name in names],
                   entry.get("abstract") or entry.get("notes_abstract"), container, year,
                   entry.get("keywords") or [], urls[0] if urls else None, entry.get("file_attachments1"), source)


def read_csl_json(path: Path) -> Iterator[SourceRecord]:
    try:
        items = orjson.loads(decode_document(read_bytes(path)))
    except orjson.JSONDecodeError as exc:
        raise SourceError(f"invalid JSON: {exc}") from exc
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise SourceError("CSL-JSON must be an array of items")
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            yield SourceRecord(str(path), f"item {number}", error="not a CSL-JSON item (an object)")
            continue
        yield SourceRecord(str(path), f"item {number}", data=_csl_record(item, str(path)))


def _csl_record(item: dict, source: str) -> dict:
    custom = _mapping(item.get("custom"))
    authors = []
    for name in item.get("author") or []:
        if isinstance(name, dict):
            literal = name.get("literal") or " ".join(
                part for part in (name.get("given"), name.get("non-dropping-particle"), name.get("family")) if part)
            if literal:
                authors.append(literal)
    year = csl_year(item)
    container = item.get("container-title") or item.get("event-title") or item.get("publisher")
    keywords = [part.strip() for part in str(item.get("keyword") or "").split(",") if part.strip()]
    url = item.get("URL")
    pdf = url if isinstance(url, str) and url.lower().endswith(".pdf") else None
    return _record(custom.get("papersift_id"), item.get("title"), authors, item.get("abstract"), container, year,
                   keywords, None if pdf else url, pdf, source)


def _record(paper_id: object, title: object, authors: list[str], abstract: object, container: object,
            year: int | None, keywords: list[str], url: object, pdf: object, source: str) -> dict:
    venue = venue_from_container(container if isinstance(container, str) else None)
    url = clean_url(url if isinstance(url, str) else None)
    forum = OPENREVIEW_FORUM.match(url or "")
    if not (isinstance(paper_id, str) and paper_id.strip()):
        if forum and venue and year:
            paper_id = f"{venue}-{year}-{forum.group(1)}"
        elif isinstance(title, str) and title.strip():
            paper_id = make_paper_id(venue if venue in KNOWN_VENUES else None, year, title)
        else:
            paper_id = None
    return {
        "id": paper_id, "title": title, "authors": authors, "abstract": abstract, "venue": venue, "year": year,
        "keywords": keywords, "url": url,
        "pdf": clean_url(pdf if isinstance(pdf, str) else None) or pdf_from_landing(url), "source": source,
    }


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _given_first(name: str) -> str:
    """RIS writes "Family, Given"; the corpus writes names as said: "Given Family"."""
    family, comma, given = name.partition(",")
    return f"{given.strip()} {family.strip()}".strip() if comma else name.strip()
