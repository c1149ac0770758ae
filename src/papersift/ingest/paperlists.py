"""Paper Copilot's paperlists JSON: one list per venue-year, `<venue>/<venue><year>[@commit].json`.

Fields differ by venue: OpenReview venues have id, title, status, track, tldr, abstract,
keywords ('a;b'), primary_area, author ('A;B'), site (forum URL); proceedings venues have
id, title, author ('A; B'), abstract, pdf, site (PMLR / NeurIPS page); newer title-only
listings have `or` (OpenReview forum) and `proceeding` links. Venue and year come from the
file name, as the listing itself does not carry them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord, base_name, load_json_document, records_of
from papersift.ingest.fields import (
    canonical_venue, clean_url, is_accepted, pdf_from_landing, split_keywords, split_names, text_or_none,
)
from papersift.record import split_topic

FILE_NAME = re.compile(r"^(?P<venue>[a-z]+?)(?P<year>\d{4})(?:@(?P<commit>[0-9a-f]+))?\.json$", re.IGNORECASE)


def listing_origin(path: Path) -> tuple[str, int, str]:
    """(venue, year, source) from 'raw/paperlists/iclr/iclr2017.json.gz' -> ICLR, 2017, 'paperlists:iclr/iclr2017.json'."""
    match = FILE_NAME.match(base_name(path))
    if not match:
        raise SourceError(f"paperlists file name must be <venue><year>.json (like iclr2024.json), got '{path.name}'")
    venue = canonical_venue(match["venue"])
    repo = f"paperlists@{match['commit']}" if match["commit"] else "paperlists"
    plain_name = f"{match['venue']}{match['year']}.json"
    return venue, int(match["year"]), f"{repo}:{path.parent.name}/{plain_name}"


def read_paperlists(path: Path) -> Iterator[SourceRecord]:
    venue, year, source = listing_origin(path)
    document = load_json_document(path)
    if not isinstance(document, list):
        raise SourceError(f"a paperlists file holds a JSON list of papers, got {type(document).__name__}")
    if not document:
        raise SourceError("empty file: no records")
    yield from records_of(path, document, lambda file, location, item: _to_record(file, location, item, venue, year, source))


def _to_record(file: str, location: str, item: dict, venue: str, year: int, source: str) -> SourceRecord:
    status = text_or_none(item.get("status"))
    if not is_accepted(status if isinstance(status, str) else None):
        return SourceRecord(file, location, skipped=f"status {status}")
    source_id = item.get("id")
    url = clean_url(text_or_none(item.get("or")) or text_or_none(item.get("site")))
    area, subarea = split_topic(text_or_none(item.get("primary_area")))
    data = {
        "id": f"{venue}-{year}-{source_id}" if isinstance(source_id, (str, int)) and str(source_id).strip() else None,
        "title": item.get("title"),
        "authors": _names(item.get("author")),
        "abstract": text_or_none(item.get("abstract")),
        "venue": venue,
        "year": year,
        "area": area,
        "subarea": subarea,
        "keywords": _keywords(item.get("keywords")),
        "url": url,
        "pdf": clean_url(text_or_none(item.get("pdf"))) or pdf_from_landing(url),
        "status": status,
        "track": text_or_none(item.get("track")),
        "tldr": text_or_none(item.get("tldr")),
        "source": source,
    }
    return SourceRecord(file, location, data=data)


def _names(value: object) -> object:
    return split_names(value) if isinstance(value, str) else value


def _keywords(value: object) -> object:
    return split_keywords(value) if isinstance(value, str) else value
