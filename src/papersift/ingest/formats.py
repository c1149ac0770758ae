"""Which reader handles a file: by explicit name, by extension, then by sniffing content."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord, base_name
from papersift.ingest.jsonl import read_jsonl

Reader = Callable[[Path], Iterator[SourceRecord]]

READERS: dict[str, Reader] = {"jsonl": read_jsonl}

EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl"}


def register(name: str, reader: Reader, extensions: tuple[str, ...] = ()) -> None:
    READERS[name] = reader
    for extension in extensions:
        EXTENSIONS[extension] = name


def detect_format(path: Path) -> str:
    name = base_name(path)
    suffix = Path(name).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    sniffers = [sniff for sniff in SNIFFERS]
    for sniff in sniffers:
        detected = sniff(path)
        if detected:
            return detected
    raise SourceError(f"cannot tell the format of {path.name}; pass --format ({', '.join(sorted(READERS))})")


# Content sniffers are added by the readers that need them (JSON documents, XML feeds).
SNIFFERS: list[Callable[[Path], str | None]] = []


def reader_for(path: Path, format_name: str | None = None) -> Reader:
    name = format_name or detect_format(path)
    if name not in READERS:
        raise SourceError(f"unknown format '{name}' (known: {', '.join(sorted(READERS))})")
    return READERS[name]
