"""The paper record: one validated, normalized paper, whatever source it came from."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field, fields
from typing import Literal, overload

import orjson

from papersift.code_links import code_link

MIN_YEAR, MAX_YEAR = 1900, 2100
MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 100_000
MAX_AUTHORS = 5_000
MAX_FIELD_CHARS = 10_000
MAX_NAME_CHARS = 300
MIN_ABSTRACT_CHARS = 30  # shorter "abstracts" are placeholders in the sources
TOPIC_SEPARATORS = ("->", " · ", "·", " > ", "/")


class RecordError(ValueError):
    """A record that cannot become a Paper; the message says which field and why."""


@dataclass(frozen=True, slots=True)
class Paper:
    id: str
    title: str
    authors: tuple[str, ...] = ()
    abstract: str | None = None
    venue: str | None = None
    year: int | None = None
    area: str | None = None
    subarea: str | None = None
    keywords: tuple[str, ...] = ()
    url: str | None = None
    pdf: str | None = None
    status: str | None = None
    track: str | None = None
    tldr: str | None = None
    # Schema 3 (issue 19): per-author details aligned with `authors` (empty strings where a
    # source lacks one), a dated citation count, and a code link.
    author_ids: tuple[str, ...] = ()  # OpenReview profile ids ('~First_Last1')
    affiliations: tuple[str, ...] = ()
    citations: int | None = None  # Google Scholar count as of `citations_as_of`
    citations_as_of: str | None = None  # ISO date of the listing's crawl
    code_url: str | None = None
    source: str | None = field(default=None, compare=False)

    @property
    def has_abstract(self) -> bool:
        return bool(self.abstract)

    @property
    def topic(self) -> str | None:
        """`Area · Subarea` as the results page shows it."""
        if self.area and self.subarea:
            return f"{self.area} · {self.subarea}"
        return self.area

    def to_dict(self) -> dict:
        record = {name: getattr(self, name) for name in PAPER_FIELDS}  # dataclasses.asdict is 10x slower
        record["authors"] = list(self.authors)
        record["keywords"] = list(self.keywords)
        record["author_ids"] = list(self.author_ids)
        record["affiliations"] = list(self.affiliations)
        return record

    def content_hash(self) -> str:
        """Hash of everything but the source path: unchanged papers are never re-processed.
        Schema-3 fields count only when filled, so papers without them keep their old hash."""
        record = self.to_dict()
        record.pop("source")
        for name in SCHEMA3_FIELDS:
            if record[name] in (None, []):
                record.pop(name)
        return hashlib.sha1(orjson.dumps(record, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def dedupe_key(self) -> str:
        """Same normalized title + year + venue means the same paper from another source."""
        return f"{normalize_title(self.title)}|{self.year or ''}|{(self.venue or '').lower()}"


PAPER_FIELDS = tuple(f.name for f in fields(Paper))
SCHEMA3_FIELDS = ("author_ids", "affiliations", "citations", "citations_as_of", "code_url")


@functools.lru_cache(maxsize=65536)  # an ingest asks for each paper's key several times (lookup, row, catalog)
def normalize_title(title: str) -> str:
    if title.isascii():  # NFKD leaves ASCII as it is and splits off no accent: most titles
        return " ".join(re.findall(r"\w+", title.lower()))
    folded = unicodedata.normalize("NFKD", title).casefold()
    # Drop the accents NFKD split off, so 'Naïve' and 'Naive' agree (and 'É' does not split a word).
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(re.findall(r"\w+", folded))


def split_topic(topic: str | None) -> tuple[str | None, str | None]:
    """'Deep Learning->Attention Mechanisms' or 'Deep Learning · Attention Mechanisms'."""
    if not topic:
        return None, None
    for separator in TOPIC_SEPARATORS:
        if separator in topic:
            area, _, subarea = topic.partition(separator)
            return (area.strip() or None), (subarea.strip() or None)
    return topic.strip() or None, None


def make_paper_id(venue: str | None, year: int | None, title: str) -> str:
    """An id for sources that carry none: stable across runs for the same paper."""
    digest = hashlib.sha1(normalize_title(title).encode()).hexdigest()[:10]
    return f"{venue or 'PAPER'}-{year or 0}-{digest}"


@overload
def _text(raw: dict, key: str, limit: int = ..., *, required: Literal[True]) -> str: ...
@overload
def _text(raw: dict, key: str, limit: int = ..., required: bool = ...) -> str | None: ...
def _text(raw: dict, key: str, limit: int = MAX_FIELD_CHARS, required: bool = False) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise RecordError(f"missing required field '{key}'")
        return None
    if not isinstance(value, str):
        raise RecordError(f"field '{key}' must be a string, got {type(value).__name__}")
    if len(value) > 2 * limit:  # refuse before cleaning: cleaning a 10 MB field takes seconds
        raise RecordError(f"field '{key}' is {len(value):,} characters long (limit {limit:,})")
    value = _clean_text(value)
    if len(value) > limit:
        raise RecordError(f"field '{key}' is {len(value):,} characters long (limit {limit:,})")
    if not value:
        if required:
            raise RecordError(f"field '{key}' is empty")
        return None
    return value


# Unicode category Cc is exactly U+0000-U+001F and U+007F-U+009F; tab and newline are kept.
CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
WHITESPACE_RUN = re.compile(r"\s+")


def _clean_text(value: str) -> str:
    # Drop control characters except whitespace; collapse runs of whitespace.
    return WHITESPACE_RUN.sub(" ", CONTROL_CHARS.sub("", value)).strip()


def _string_list(raw: dict, key: str, limit: int) -> tuple[str, ...]:
    value = raw.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = re.split(r"[;,]", value) if key == "keywords" else [value]
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"field '{key}' must be a list of strings, got {type(value).__name__}")
    if len(value) > limit:
        raise RecordError(f"field '{key}' has {len(value):,} entries (limit {limit:,})")
    items: list[str] = []
    for position, item in enumerate(value):
        if not isinstance(item, str):
            raise RecordError(f"field '{key}'[{position}] must be a string, got {type(item).__name__}")
        cleaned = _clean_text(item)
        if len(cleaned) > MAX_NAME_CHARS and "," in cleaned:
            # Some listings put a whole author list into one string.
            items.extend(part.strip() for part in cleaned.split(",") if part.strip())
            continue
        if len(cleaned) > MAX_NAME_CHARS:
            raise RecordError(f"field '{key}'[{position}] is {len(cleaned):,} characters (limit {MAX_NAME_CHARS})")
        if cleaned:
            items.append(cleaned)
    if len(items) > limit:
        raise RecordError(f"field '{key}' has {len(items):,} entries (limit {limit:,})")
    return tuple(items)


def _year(raw: dict) -> int | None:
    value = raw.get("year")
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise RecordError("field 'year' must be an integer, got bool")
    if isinstance(value, str) and value.strip().isdecimal():  # isdigit() admits "²", which int() rejects
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise RecordError(f"field 'year' must be an integer, got {value!r:.40}")
    if not MIN_YEAR <= value <= MAX_YEAR:
        raise RecordError(f"field 'year' is {value}, outside {MIN_YEAR}..{MAX_YEAR}")
    return value


def _aligned(raw: dict, key: str, authors: tuple[str, ...]) -> tuple[str, ...]:
    """A per-author list ('' where unknown); one that does not pair up with the authors is
    dropped rather than attached to the wrong people."""
    value = raw.get(key)
    if value in (None, [], ()):
        return ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise RecordError(f"field '{key}' must be a list of strings")
    if len(value) != len(authors):
        return ()
    items = tuple(_clean_text(item)[:MAX_NAME_CHARS] for item in value)
    return items if any(items) else ()


def _citations(raw: dict) -> int | None:
    value = raw.get("citations")
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().lstrip("-").isdecimal():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"field 'citations' must be an integer, got {value!r:.40}")
    return value if value >= 0 else None  # listings write -1 for "not found"


def paper_from_dict(raw: object, source: str | None = None) -> Paper:
    """Validate one normalized record (the shared corpus schema) into a Paper.

    Raises RecordError naming the offending field. Abstracts shorter than
    MIN_ABSTRACT_CHARS are placeholders and become None (a title-only paper).
    """
    if not isinstance(raw, dict):
        raise RecordError(f"record must be a JSON object, got {type(raw).__name__}")
    title = _text(raw, "title", MAX_TITLE_CHARS, required=True)
    abstract = _text(raw, "abstract", MAX_ABSTRACT_CHARS)
    if abstract and len(abstract) < MIN_ABSTRACT_CHARS:
        abstract = None
    venue = _text(raw, "venue", 100)
    year = _year(raw)
    area, subarea = _text(raw, "area", 200), _text(raw, "subarea", 200)
    if area and not subarea:
        area, subarea = split_topic(area)
    paper_id = _text(raw, "id", 300) or make_paper_id(venue, year, title)
    authors = _string_list(raw, "authors", MAX_AUTHORS)
    code_url = _text(raw, "code_url", 2_000) or code_link(abstract)
    return Paper(
        id=paper_id,
        title=title,
        authors=authors,
        abstract=abstract,
        venue=venue,
        year=year,
        area=area,
        subarea=subarea,
        keywords=_string_list(raw, "keywords", 200),
        url=_text(raw, "url", 2_000),
        pdf=_text(raw, "pdf", 2_000),
        status=_text(raw, "status", 100),
        track=_text(raw, "track", 200),
        tldr=_text(raw, "tldr", MAX_FIELD_CHARS),
        author_ids=_aligned(raw, "author_ids", authors),
        affiliations=_aligned(raw, "affiliations", authors),
        citations=_citations(raw),
        citations_as_of=_text(raw, "citations_as_of", 40),
        code_url=code_url,
        source=source or _text(raw, "source", 2_000),
    )


def paper_text(paper: Paper) -> str:
    """What a paper is embedded from: title and abstract (the tokenizer truncates the tail)."""
    abstract = (paper.abstract or "").strip()
    title = paper.title.strip()
    return f"{title}. {abstract}" if abstract else title
