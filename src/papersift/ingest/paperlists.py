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

from papersift.code_links import code_link
from papersift.ingest.base import SourceError, SourceRecord, base_name, load_json_document, records_of
from papersift.ingest.fields import (
    canonical_venue,
    clean_url,
    is_accepted,
    pdf_from_landing,
    split_keywords,
    split_names,
    text_or_none,
)
from papersift.record import split_topic

# When each snapshot of the listings was committed (git log of papercopilot/paperlists): the
# date a list's Google Scholar counts are "as of" (the lists carry no crawl date themselves).
# The plain files come from the newest snapshot, 33f9884e; older ones are named '<list>@<commit>'.
SNAPSHOT_DATES = {
    "33f9884e65": "2026-02-23",
    "d3c8627a9e": "2025-06-02",
    "d455370183": "2025-03-25",
    "ae3ec4add0": "2024-11-03",
}
LATEST_SNAPSHOT = "33f9884e65"

FILE_NAME = re.compile(r"^(?P<venue>[a-z]+?)(?P<year>\d{4})(?:@(?P<commit>[0-9a-f]+))?\.json$", re.IGNORECASE)


def listing_origin(path: Path) -> tuple[str, int, str]:
    """(venue, year, source) from 'raw/paperlists/iclr/iclr2017.json.gz' -> ICLR, 2017, 'paperlists:iclr/iclr2017.json'."""
    match = FILE_NAME.match(base_name(path))
    if not match:
        raise SourceError(f"paperlists file name must be <venue><year>.json (like iclr2024.json), got '{path.name}'")
    venue = canonical_venue(match["venue"]) or match["venue"]  # never empty: the pattern needs a letter
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
    named = FILE_NAME.match(base_name(path))
    commit = named["commit"] if named else None  # it matched in listing_origin
    as_of = SNAPSHOT_DATES.get((commit or LATEST_SNAPSHOT)[:10])
    yield from records_of(path, document,
                          lambda file, location, item: _to_record(file, location, item, venue, year, source, as_of))


def _to_record(file: str, location: str, item: dict, venue: str, year: int, source: str,
               as_of: str | None = None) -> SourceRecord:
    status = text_or_none(item.get("status"))
    source_id = item.get("id")
    paper_id = f"{venue}-{year}-{source_id}" if isinstance(source_id, (str, int)) and str(source_id).strip() else None
    if not is_accepted(status if isinstance(status, str) else None):
        # Kept apart (store.submissions) for acceptance rates; never a paper of the venue.
        submission = None
        if paper_id:  # counted even without a title (one ICLR 2017 rejection has none)
            title = item["title"].strip() if isinstance(item.get("title"), str) else ""
            submission = {"id": paper_id, "venue": venue, "year": year, "title": title,
                          "authors": _names(item.get("author")) or [], "status": str(status), "source": source}
        return SourceRecord(file, location, skipped=f"status {status}", submission=submission)
    authors = _names(item.get("author"))
    citations = _citation_count(item.get("gs_citation"))
    url = clean_url(text_or_none(item.get("or")) or text_or_none(item.get("site")))
    area, subarea = split_topic(_topic(item.get("primary_area")))
    data = {
        "id": paper_id,
        "title": item.get("title"),
        "authors": authors,
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
        "author_ids": _per_author(item.get("authorids"), authors),
        "affiliations": _per_author(item.get("aff"), authors),
        "citations": citations,
        "citations_as_of": as_of if citations is not None else None,
        "code_url": code_link(item.get("github") if isinstance(item.get("github"), str) else None)
        or code_link(item.get("abstract") if isinstance(item.get("abstract"), str) else None),
        "source": source,
    }
    return SourceRecord(file, location, data=data)


def _per_author(value: object, authors: object) -> list[str] | None:
    """'a;b;c' (OpenReview) or 'a; b; c' (proceedings) -> one entry per author, or None when
    the counts differ (an affiliation must not land on the wrong person)."""
    if not isinstance(value, str) or not isinstance(authors, list) or not value.strip(";, "):
        return None
    parts = [part.strip() for part in value.split(";")]
    return parts if len(parts) == len(authors) else None


def _citation_count(value: object) -> int | None:
    """gs_citation: a count as text; -1 or empty means Scholar had none (missing, not zero)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value.strip())
    return None


def _names(value: object) -> object:
    return split_names(value) if isinstance(value, str) else value


def _keywords(value: object) -> object:
    return split_keywords(value) if isinstance(value, str) else value


def _topic(value: object) -> str | None:
    topic = text_or_none(value)
    if topic is not None and not isinstance(topic, str):
        raise TypeError(f"field 'primary_area' must be a string, got {type(topic).__name__}")
    return topic
