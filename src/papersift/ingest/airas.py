"""airas-papers-db JSON: `data/<conference>/<year>.json`, a list of
{id, title, authors[], abstract, topic ('Area->Subarea' or ''), conference, year, paper_url}.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord, base_name, load_json_document, records_of
from papersift.ingest.fields import canonical_venue, clean_url, pdf_from_landing, text_or_none
from papersift.record import split_topic

REPO = "airas-papers-db"


def read_airas(path: Path) -> Iterator[SourceRecord]:
    source = f"{REPO}:data/{path.parent.name}/{base_name(path)}"
    document = load_json_document(path)
    if not isinstance(document, list):
        raise SourceError(f"an airas file holds a JSON list of papers, got {type(document).__name__}")
    if not document:
        raise SourceError("empty file: no records")
    yield from records_of(path, document, lambda file, location, item: _to_record(file, location, item, source))


def _to_record(file: str, location: str, item: dict, source: str) -> SourceRecord:
    conference = item.get("conference")
    venue = canonical_venue(conference) if isinstance(conference, str) else None
    year = item.get("year")
    source_id = item.get("id")
    topic = text_or_none(item.get("topic"))
    area, subarea = split_topic(topic) if isinstance(topic, str) else (None, None)
    url = clean_url(text_or_none(item.get("paper_url")))
    data = {
        "id": f"{venue}-{year}-{source_id}" if venue and year and source_id else None,
        "title": item.get("title"),
        "authors": item.get("authors"),
        "abstract": text_or_none(item.get("abstract")),
        "venue": venue,
        "year": year,
        "area": area,
        "subarea": subarea,
        "keywords": [],
        "url": url,
        "pdf": pdf_from_landing(url),
        "source": source,
    }
    return SourceRecord(file, location, data=data)
