"""Reader detection: by extension, then by content (gzipped or not, whatever the name)."""

from __future__ import annotations

import gzip
import re
import shutil

import pytest
from tests.ingest.conftest import FIXTURES

from papersift.ingest.base import SourceError
from papersift.ingest.formats import detect_format, reader_for


@pytest.mark.parametrize(("relative_path", "expected"), [
    ("ml_papers/papers.jsonl.gz", "jsonl"),
    ("ml_papers/raw/paperlists/iclr/iclr2017.json.gz", "paperlists"),
    ("ml_papers/raw/paperlists/nips/nips1990.json.gz", "paperlists"),
    ("ml_papers/raw/airas-papers-db/data/icml/2021.json.gz", "airas"),
])
def test_shared_files_are_detected(shared_data, relative_path, expected):
    assert detect_format(shared_data / relative_path) == expected


@pytest.mark.parametrize(("fixture", "expected"), [
    ("openreview/colm2024-offset0.json", "openreview"),
    ("openreview/iclr2024-notes.json", "openreview"),
    ("arxiv/query-start0.atom", "arxiv"),
    ("arxiv/oai-page1.xml", "oai-pmh"),
    ("bibtex/papers.bib", "bibtex"),
])
def test_fixtures_are_detected_by_content_under_any_name(fixture, expected, tmp_path):
    assert detect_format(FIXTURES / fixture) == expected
    renamed = tmp_path / "download.dat.gz"  # no telling extension, and gzipped
    with open(FIXTURES / fixture, "rb") as source, gzip.open(renamed, "wb") as target:
        shutil.copyfileobj(source, target)
    assert detect_format(renamed) == expected


def test_csv_and_one_line_json_are_sniffed(tmp_path):
    csv_file = tmp_path / "export.txt"
    csv_file.write_text("id,title,authors\n1,A Title,Ann\n")
    assert detect_format(csv_file) == "csv"
    one_line = tmp_path / "notes.json"
    one_line.write_text('{"notes": [{"id": "x", "content": {"title": {"value": "T"}}}], "count": 1}')
    assert detect_format(one_line) == "openreview"


def test_unknown_content_and_empty_files_are_explained(tmp_path):
    unknown = tmp_path / "notes.txt"
    unknown.write_text("just some words\n")
    with pytest.raises(SourceError, match=re.escape("cannot tell the format of notes.txt; pass --format")):
        detect_format(unknown)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty file"):
        detect_format(empty)
    with pytest.raises(SourceError, match="unknown format 'yaml'"):
        reader_for(unknown, "yaml")
