"""What every source reader yields, and the file opening they share."""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

GZIP_MAGIC = b"\x1f\x8b"
# One JSON Lines record may not exceed this. The record's own field limits (papersift.record)
# add up to well under it for real records (the largest line of the shared corpus is ~25 KB);
# the cap keeps a hostile line (600 MB of one string in a 582 KB gzip) from being held in memory.
MAX_LINE_BYTES = 8 * 1024 * 1024
# A whole-document format (JSON list, CSV, BibTeX, XML) is read into memory before parsing;
# its decompressed size is capped here. JSON Lines streams and has no file-size cap.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024
DECOMPRESSION_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)


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
    submission: dict | None = None  # a skipped submission worth keeping (store.upsert_submissions)


class SourceError(ValueError):
    """A whole file cannot be read (wrong format, empty, not decodable)."""


def open_source(path: Path) -> BinaryIO | gzip.GzipFile:
    """The file's content as a binary stream, gunzipped when its first bytes are gzip's magic
    (whatever its name says: formats are found by content). Only regular files: a device
    (/dev/zero) or a directory is refused with SourceError."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a device, pipe or socket"
        raise SourceError(f"not a regular file ({kind})")
    handle = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    if handle.read(2) == GZIP_MAGIC:
        handle.close()
        return gzip.open(path, "rb")
    handle.seek(0)
    return handle


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The whole (decompressed) file, refused past `limit` (MAX_DOCUMENT_BYTES) bytes without
    reading further. A truncated gzip raises SourceError."""
    limit = MAX_DOCUMENT_BYTES if limit is None else limit
    try:
        with open_source(path) as handle:
            raw = handle.read(limit + 1)
    except DECOMPRESSION_ERRORS as exc:
        raise SourceError(f"corrupt or truncated gzip: {exc}") from exc
    if len(raw) > limit:
        raise SourceError(f"file is over {limit:,} bytes (decompressed), the limit for a format read whole; "
                          "split it, or convert it to JSON Lines, which is read line by line")
    return raw


def iter_lines(path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | None, str | None]]:
    """(line number, raw line, error), streaming with bounded memory. A line over
    `max_line_bytes` yields an error naming it and is skipped in chunks (reading goes on
    with the next line); a truncated gzip ends with an error line."""
    line_number = 0
    try:
        with open_source(path) as handle:
            while line := handle.readline(max_line_bytes + 1):
                line_number += 1
                if len(line) <= max_line_bytes:
                    yield line_number, line, None
                    continue
                size = _skip_rest_of_line(handle, line)
                yield line_number, None, (f"line is {size:,} bytes, over the {max_line_bytes // 2**20} MiB limit "
                                          "for one record; skipped")
    except DECOMPRESSION_ERRORS as exc:
        yield line_number + 1, None, f"corrupt or truncated gzip after line {line_number}: {exc}"


def _skip_rest_of_line(handle: BinaryIO | gzip.GzipFile, start: bytes) -> int:
    """Read past the end of an over-long line, a chunk at a time; its total size in bytes."""
    size, chunk = len(start), start
    while chunk and not chunk.endswith(b"\n"):
        chunk = handle.readline(_SKIP_CHUNK)
        size += len(chunk)
    return size


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
