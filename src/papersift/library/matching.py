"""Matching imported references (BibTeX, RIS, CSL-JSON entries) to stored papers.

The rules, strongest first: a papersift paper id the entry carries (our own exports do, and
an id merged into another paper resolves to it); then an identifier found in its DOI, URLs
or eprint: DOI, arXiv id, OpenReview forum id, compared with the ones in the stored papers'
URLs; then the normalized title (`title_key`: LaTeX decoded as BibTeX fields are, then
record.normalize_title: case, accents, punctuation; the same on both sides) with
the year, or the title alone when the entry gives no year and only one paper has it. A title
+ year that several papers share is decided by the venue, or reported as ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from papersift.ingest.bibtex import decode_latex
from papersift.record import normalize_title
from papersift.store import Store

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[A-Z]{2})?/\d{7}))", re.IGNORECASE)
ARXIV_BARE = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5})(?:v\d+)?$", re.IGNORECASE)
OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w\-]+)", re.IGNORECASE)


def title_key(title: str) -> str:
    """The one form titles are compared in, stored and imported alike. Stored titles keep the
    sources' TeX (`Schr\\"{o}dinger`, `\\boldmath$\\ell_1$`) and papersift's BibTeX export writes
    them so; a BibTeX import decodes them. Decoding both sides the same way makes the round trip
    match (a decoded title decodes to itself)."""
    return normalize_title(decode_latex(title))


@dataclass(frozen=True)
class ImportedEntry:
    """One reference read from a file, in the terms matching needs; `label` names it in reports."""

    label: str
    title: str | None = None
    year: int | None = None
    venue: str | None = None
    paper_ids: tuple[str, ...] = ()  # papersift ids the entry carries
    links: tuple[str, ...] = ()  # DOI, URLs, eprint: where identifiers are looked for
    tags: tuple[str, ...] = ()
    note: str | None = None
    rating: int | None = None
    reading: str | None = None
    added_at: float | None = None


@dataclass
class MatchResult:
    matched: list[tuple[ImportedEntry, str, str]] = field(default_factory=list)  # (entry, paper id, rule)
    unmatched: list[tuple[ImportedEntry, str]] = field(default_factory=list)  # (entry, why)

    def report_lines(self) -> list[str]:
        """One line per entry that matched no paper, naming it and why."""
        return [f"{entry.label}: {why}" for entry, why in self.unmatched]


def identifiers(texts: Iterable[str | None]) -> set[str]:
    """'doi:...', 'arxiv:...', 'openreview:...' keys found in DOIs, URLs and eprint fields."""
    keys: set[str] = set()
    for value in texts:
        if not value:
            continue
        text = str(value).strip()
        keys.update(f"openreview:{found}" for found in OPENREVIEW.findall(text))
        keys.update(f"arxiv:{found.lower()}" for found in ARXIV.findall(text))
        bare = ARXIV_BARE.match(text)
        if bare:
            keys.add(f"arxiv:{bare.group(1)}")
        if "openreview" not in text.lower() and "arxiv" not in text.lower():
            keys.update(f"doi:{found.lower().rstrip('.')}" for found in DOI.findall(text))
    return keys


class PaperMatcher:
    """Look-up maps over every stored paper (one read of id, title, year, venue, URLs)."""

    def __init__(self, store: Store):
        self.store = store
        self.by_identifier: dict[str, str] = {}
        self.by_title_year: dict[tuple[str, int | None], list[tuple[str, str | None]]] = {}
        self.by_title: dict[str, list[str]] = {}
        for row in store.read("SELECT id, title, year, venue, url, pdf FROM papers"):
            paper_id = row["id"]
            for key in identifiers((row["url"], row["pdf"])):
                self.by_identifier.setdefault(key, paper_id)
            title = title_key(row["title"])
            self.by_title_year.setdefault((title, row["year"]), []).append((paper_id, row["venue"]))
            self.by_title.setdefault(title, []).append(paper_id)

    def match(self, entry: ImportedEntry) -> tuple[str | None, str]:
        """(paper id, the rule that matched) or (None, why not)."""
        for paper_id in entry.paper_ids:
            paper = self.store.get(paper_id)
            if paper is not None:
                return paper.id, "paper id"
        for key in sorted(identifiers(entry.links)):
            if key in self.by_identifier:
                return self.by_identifier[key], key.split(":")[0]
        if not entry.title or not title_key(entry.title):
            return None, "no title and no identifier that a stored paper has"
        title = title_key(entry.title)
        if entry.year is not None:
            candidates = self.by_title_year.get((title, entry.year), [])
            if len(candidates) > 1 and entry.venue:
                candidates = [item for item in candidates if (item[1] or "").lower() == entry.venue.lower()] or candidates
            if len(candidates) == 1:
                return candidates[0][0], "title + year"
            if candidates:
                return None, f"title + year match {len(candidates)} papers ({', '.join(c[0] for c in candidates[:3])})"
            others = self.by_title.get(title, [])
            if others:
                return None, f"the title matches {', '.join(others[:3])} but not the year {entry.year}"
            return None, f"no stored paper has its identifiers or the title {entry.title[:80]!r} ({entry.year})"
        titled = self.by_title.get(title, [])
        if len(titled) == 1:
            return titled[0], "title"
        if titled:
            return None, f"no year, and {len(titled)} papers have the title"
        return None, f"no stored paper has its identifiers or the title {entry.title[:80]!r} (no year)"

    def match_all(self, entries: Iterable[ImportedEntry]) -> MatchResult:
        result = MatchResult()
        for entry in entries:
            paper_id, rule = self.match(entry)
            if paper_id is None:
                result.unmatched.append((entry, rule))
            else:
                result.matched.append((entry, paper_id, rule))
        return result
