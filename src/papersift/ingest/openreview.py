"""OpenReview API v2 notes: a `/notes` response {"notes": [...], "count": N} or a list of notes.

In API v2 every content field is wrapped: {"title": {"value": "..."}}; API v1's bare values
are read too. Venue and year come from `content.venueid` ('ICLR.cc/2024/Conference'); notes
whose venueid marks them rejected, withdrawn or still under review are skipped, as the
conference listings drop them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord, load_json_document, records_of
from papersift.ingest.fields import canonical_venue, pdf_from_landing, text_or_none
from papersift.record import split_topic

FORUM_URL = "https://openreview.net/forum?id={}"
NOT_PUBLISHED = re.compile(r"(reject|withdraw|submission$|/submitted)", re.IGNORECASE)
YEAR = re.compile(r"\b(19|20)\d{2}\b")
TLDR_KEYS = ("TLDR", "TL;DR", "tldr", "one-sentence_summary")


def read_openreview(path: Path) -> Iterator[SourceRecord]:
    document = load_json_document(path)
    notes = document.get("notes") if isinstance(document, dict) else document
    if not isinstance(notes, list):
        raise SourceError("an OpenReview file holds a /notes response {\"notes\": [...]} or a list of notes")
    if not notes:
        raise SourceError("empty file: no notes")
    yield from records_of(path, notes, _to_record)


def content_value(content: dict, key: str) -> object:
    """API v2 wraps each value as {"value": ...}; API v1 stores it bare."""
    value = content.get(key)
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def venue_of(venue_id: str) -> tuple[str | None, int | None]:
    """'ICLR.cc/2024/Conference' -> ('ICLR', 2024); 'colmweb.org/COLM/2024/Conference' -> ('COLM', 2024)."""
    parts = venue_id.split("/")
    for position, part in enumerate(parts):
        if re.fullmatch(r"(19|20)\d{2}", part) and position > 0:
            name = re.sub(r"\.(cc|org|net|com|io)$", "", parts[position - 1], flags=re.IGNORECASE)
            return canonical_venue(name), int(part)
    return canonical_venue(re.sub(r"\.(cc|org|net|com|io)$", "", parts[0])), None


def status_of(venue_text: str | None, venue: str | None, year: int | None) -> str | None:
    """'ICLR 2024 poster' -> 'Poster'; 'COLM 2024' -> None."""
    if not venue_text or not isinstance(venue_text, str):
        return None
    rest = venue_text
    for word in (venue or "", str(year or "")):
        rest = re.sub(rf"\b{re.escape(word)}\b", "", rest, flags=re.IGNORECASE) if word else rest
    rest = rest.strip(" -,:()")
    return rest[:1].upper() + rest[1:] if rest else None


def _to_record(file: str, location: str, note: dict) -> SourceRecord:
    content = note.get("content")
    if not isinstance(content, dict):
        return SourceRecord(file, location, error="note has no 'content' object")
    note_id = note.get("forum") or note.get("id")
    location = f"{location} (note {note_id})" if note_id else location
    venue_id = content_value(content, "venueid")
    venue_id = venue_id if isinstance(venue_id, str) else ""
    if NOT_PUBLISHED.search(venue_id):
        return SourceRecord(file, location, skipped=f"venueid {venue_id}")
    venue, year = venue_of(venue_id) if venue_id else (None, None)
    venue_text = content_value(content, "venue")
    year = year or _year_from(venue_text, note)
    url = FORUM_URL.format(note_id) if isinstance(note_id, str) and note_id else None
    primary_area = text_or_none(content_value(content, "primary_area"))
    area, subarea = split_topic(primary_area) if isinstance(primary_area, str) else (None, None)
    data = {
        "id": f"{venue or 'OpenReview'}-{year or 0}-{note_id}" if url else None,
        "title": content_value(content, "title"),
        "authors": content_value(content, "authors") or [],
        "abstract": text_or_none(content_value(content, "abstract")),
        "venue": venue,
        "year": year,
        "area": area,
        "subarea": subarea,
        "keywords": content_value(content, "keywords") or [],
        "url": url,
        "pdf": pdf_from_landing(url),
        "status": status_of(venue_text if isinstance(venue_text, str) else None, venue, year),
        "tldr": next((text_or_none(content_value(content, key)) for key in TLDR_KEYS if content.get(key)), None),
        "source": f"openreview:{venue_id}" if venue_id else None,
    }
    return SourceRecord(file, location, data=data)


def _year_from(venue_text: object, note: dict) -> int | None:
    if isinstance(venue_text, str):
        match = YEAR.search(venue_text)
        if match:
            return int(match.group(0))
    stamp = note.get("pdate") or note.get("cdate")
    if isinstance(stamp, (int, float)) and stamp > 0:
        return datetime.fromtimestamp(stamp / 1000, tz=timezone.utc).year
    return None
