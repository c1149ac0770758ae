"""What every source reader yields, and the file opening they share."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One record as read from a source: a normalized dict, or the reason it is unreadable.

    `data` uses the shared corpus schema (id, title, authors, abstract, venue, year, ...);
    validation into a Paper happens later, in one place (papersift.record).
    """

    path: str
    location: str  # "line 12", "record 5", "entry smith20"
    data: dict | None = None
    error: str | None = None
    skipped: str | None = None  # why a readable record is not a paper (e.g. "status Reject")


class SourceError(ValueError):
    """A whole file cannot be read (wrong format, empty, not decodable)."""


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it ends in .gz. A truncated gzip raises SourceError."""
    raw = path.read_bytes()
    if path.suffix == ".gz" or raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise SourceError(f"corrupt or truncated gzip: {exc}") from exc
    return raw


def iter_lines(path: Path) -> Iterator[tuple[int, bytes | None, str | None]]:
    """(line number, raw line, error) streaming; a truncated gzip ends with an error line."""
    opener = gzip.open if path.suffix == ".gz" else open
    line_number = 0
    try:
        with opener(path, "rb") as handle:
            for line_number, line in enumerate(handle, start=1):
                yield line_number, line, None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        yield line_number + 1, None, f"corrupt or truncated gzip after line {line_number}: {exc}"


def decode_text(raw: bytes) -> str:
    """Strict UTF-8 (with or without BOM); the error names the byte offset."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"invalid UTF-8 at byte {exc.start}") from exc


def decode_document(raw: bytes) -> str:
    """Strict UTF-8 for a whole file; the error names the line and byte offset."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SourceError(f"invalid UTF-8 on line {line} (byte {exc.start})") from exc


def load_json_document(path: Path) -> object:
    """A whole-file JSON document; empty, undecodable or broken files raise SourceError."""
    text = decode_document(read_bytes(path))
    if not text.strip():
        raise SourceError("empty file: no records")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise SourceError(f"broken JSON: {exc}") from exc


def records_of(path: Path, items: Iterable[object], to_record) -> Iterator[SourceRecord]:
    """Map each item of a JSON list with `to_record`; one bad item becomes one error."""
    for number, item in enumerate(items, start=1):
        location = f"record {number}"
        if not isinstance(item, dict):
            yield SourceRecord(str(path), location, error=f"record must be a JSON object, got {type(item).__name__}")
            continue
        try:
            yield to_record(str(path), location, item)
        except (TypeError, ValueError, AttributeError) as exc:
            yield SourceRecord(str(path), location, error=f"unreadable record: {exc}")


def base_name(path: Path) -> str:
    """File name without .gz: 'iclr2024.json.gz' -> 'iclr2024.json'."""
    name = path.name
    return name[:-3] if name.endswith(".gz") else name
