"""CSV (or TSV) with a header row; column names follow the corpus schema.

Authors are one cell separated by ';' or ' and ' (keywords by ';' or ','); a `topic`
column ('Area->Subarea') may stand in for area/subarea. Unknown columns are ignored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord, base_name, decode_document, read_bytes
from papersift.ingest.fields import canonical_venue, split_names, text_or_none
from papersift.record import PAPER_FIELDS, split_topic

COLUMN_ALIASES = {"author": "authors", "keyword": "keywords", "pdf_url": "pdf", "paper_url": "url", "summary": "abstract"}
MAX_CELL_CHARS = 1_000_000  # csv's default limit (128 KiB) is smaller than the record's own checks


def read_csv(path: Path) -> Iterator[SourceRecord]:
    text = decode_document(read_bytes(path))
    if not text.strip():
        raise SourceError("empty file: no records")
    delimiter = "\t" if base_name(path).lower().endswith(".tsv") else _sniff_delimiter(text)
    csv.field_size_limit(max(csv.field_size_limit(), MAX_CELL_CHARS * 20))
    rows = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    columns = {name: _column(name) for name in rows.fieldnames or []}
    if "title" not in columns.values():
        raise SourceError(f"CSV header has no 'title' column (header: {', '.join(rows.fieldnames or [])[:200]})")
    try:
        for row in rows:
            location = f"line {rows.line_num}"
            if None in row:  # more cells than header columns
                yield SourceRecord(str(path), location, error=f"{len(row[None])} cell(s) more than the header's columns")
                continue
            yield SourceRecord(str(path), location, data=_to_record(row, columns, str(path)))
    except csv.Error as exc:
        yield SourceRecord(str(path), f"line {rows.line_num}", error=f"broken CSV: {exc}")


def _sniff_delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    return max((",", ";", "\t"), key=header.count)


def _column(name: str) -> str:
    key = (name or "").strip().lower().replace(" ", "_")
    return COLUMN_ALIASES.get(key, key)


def _to_record(row: dict, columns: dict, source: str) -> dict:
    data: dict = {"source": source}
    for name, value in row.items():
        key = columns.get(name)
        if key in PAPER_FIELDS or key == "topic":
            data[key] = text_or_none(value)
    if data.get("topic") and not data.get("area"):
        data["area"], data["subarea"] = split_topic(data["topic"])
    data.pop("topic", None)
    data["authors"] = split_names(data.get("authors"))
    keywords = data.get("keywords")
    data["keywords"] = [part.strip() for part in keywords.replace(",", ";").split(";") if part.strip()] if keywords else []
    data["venue"] = canonical_venue(data.get("venue"))
    return data
