"""Field conversions that several source readers share: venues, names, links, statuses."""

from __future__ import annotations

import re

# Canonical spelling of the venues the corpus uses; sources write them in many cases.
KNOWN_VENUES = ("ICML", "NeurIPS", "ICLR", "AISTATS", "COLT", "UAI", "COLM")
VENUE_ALIASES = {venue.lower(): venue for venue in KNOWN_VENUES} | {"nips": "NeurIPS"}

# Listings also carry submissions that were not accepted; they are not papers of the venue.
NOT_ACCEPTED = {"reject", "rejected", "withdraw", "withdrawn", "desk reject", "desk rejected", "active"}

OPENREVIEW_FORUM = re.compile(r"^https?://openreview\.net/forum\?id=([^&#]+)")
PROCEEDINGS_ABSTRACT = re.compile(r"^(https?://[^/]+/.*)/hash/([0-9a-f]+)-Abstract(?:-[\w]+)?\.html$")


def canonical_venue(name: str | None) -> str | None:
    """'nips' -> 'NeurIPS', 'iclr' -> 'ICLR'; unknown venues keep their spelling."""
    if not name:
        return None
    return VENUE_ALIASES.get(name.strip().lower(), name.strip())


def split_names(text: str | None) -> list[str]:
    """'A; B' or 'A;B', else 'A and B' (BibTeX style), else 'A, B' -> a list of names."""
    if not text:
        return []
    if ";" in text:
        parts = text.split(";")
    elif " and " in text:
        parts = text.split(" and ")
    else:
        parts = text.split(",")
    return [part.strip() for part in parts if part.strip()]


def split_keywords(text: str | None) -> list[str]:
    if not text:
        return []
    return [part.strip() for part in text.split(";") if part.strip()]


def pdf_from_landing(url: str | None) -> str | None:
    """The PDF link that the landing URL pattern implies (OpenReview forum, NeurIPS proceedings)."""
    if not url:
        return None
    forum = OPENREVIEW_FORUM.match(url)
    if forum:
        return f"https://openreview.net/pdf?id={forum.group(1)}"
    proceedings = PROCEEDINGS_ABSTRACT.match(url)
    if proceedings:
        return f"{proceedings.group(1)}/file/{proceedings.group(2)}-Paper.pdf"
    return None


def clean_url(url: object) -> str | None:
    """Collapse doubled slashes in the path ('https://host//paper_files' -> '/paper_files');
    None for no URL or a value that is not a string."""
    if not url or not isinstance(url, str):
        return None
    scheme, separator, rest = url.strip().partition("://")
    if not separator:
        return url.strip() or None
    return f"{scheme}://{re.sub(r'/{2,}', '/', rest)}"


def is_accepted(status: str | None) -> bool:
    return (status or "").strip().lower() not in NOT_ACCEPTED


def text_or_none(value: object) -> object:
    """Empty strings in listings mean 'no value'; other types pass through for validation."""
    if isinstance(value, str) and not value.strip():
        return None
    return value


def parse_year(value: object) -> int | None:
    """The first plausible year in a date as reference managers write it ("2020", "2020/05/01",
    "May 2020"), else None."""
    found = re.search(r"\b(1[89]\d\d|20\d\d|2100)\b", str(value or ""))
    return int(found.group(1)) if found else None
