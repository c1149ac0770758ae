"""Normalized JSON Lines (the shared corpus format), plain or gzipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from papersift.ingest.base import SourceError, SourceRecord, decode_text, iter_lines


def read_jsonl(path: Path) -> Iterator[SourceRecord]:
    for line_number, raw_line, error in iter_lines(path):
        location = f"line {line_number}"
        if raw_line is None:  # an over-long line (reading goes on) or a truncated gzip (the last item)
            yield SourceRecord(str(path), location, error=error)
            continue
        if not raw_line.strip():
            continue
        try:
            data = orjson.loads(decode_text(raw_line.rstrip(b"\r\n")))
        except SourceError as exc:
            yield SourceRecord(str(path), location, error=str(exc))
            continue
        except orjson.JSONDecodeError as exc:
            yield SourceRecord(str(path), location, error=f"broken JSON: {exc}")
            continue
        yield SourceRecord(str(path), location, data=data)
