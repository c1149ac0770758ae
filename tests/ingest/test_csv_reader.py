"""CSV with a header: real corpus rows written as CSV read back to the same papers."""

from __future__ import annotations

import csv

import pytest
from tests.ingest.conftest import ingest_into

from papersift.ingest.base import SourceError
from papersift.ingest.csv_reader import read_csv
from papersift.ingest.pipeline import IngestError, validate
from papersift.record import make_paper_id, paper_from_dict

COLUMNS = ["id", "title", "authors", "abstract", "venue", "year", "topic", "keywords", "url", "pdf", "status", "track", "tldr"]


def _write_csv(path, rows, columns=COLUMNS, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _as_row(record: dict, author_separator: str) -> dict:
    row = {key: record.get(key) for key in COLUMNS}
    row["authors"] = author_separator.join(record["authors"])
    row["keywords"] = "; ".join(record["keywords"])
    row["topic"] = f"{record['area']}->{record['subarea']}" if record["area"] else ""
    return row


@pytest.mark.parametrize("author_separator", ["; ", " and "])
def test_corpus_rows_round_trip_through_csv(sample_records, author_separator, tmp_path):
    records = [record for record in sample_records if all("," not in name for name in record["authors"])][:300]
    path = _write_csv(tmp_path / "papers.csv", [_as_row(record, author_separator) for record in records])
    papers = [validate(record) for record in read_csv(path)]
    expected = [paper_from_dict(record) for record in records]
    assert papers == expected


def test_rows_without_id_get_a_stable_made_up_id(tmp_path):
    row = {"title": "Sharp Bounds for {Sparse} Recovery", "authors": "Ann One and Bob Two", "venue": "nips", "year": "2019"}
    path = _write_csv(tmp_path / "papers.csv", [row], columns=["title", "authors", "venue", "year"])
    (paper,) = [validate(record) for record in read_csv(path)]
    assert paper.id == make_paper_id("NeurIPS", 2019, "Sharp Bounds for {Sparse} Recovery")
    assert (paper.venue, paper.year, paper.authors) == ("NeurIPS", 2019, ("Ann One", "Bob Two"))


def test_tsv_and_semicolon_delimited_files(tmp_path):
    row = {"title": "A Title", "authors": "Ann One; Bob Two", "year": "2020"}
    for name, delimiter in (("papers.tsv", "\t"), ("papers.csv", ";")):
        path = _write_csv(tmp_path / name, [row], columns=["title", "authors", "year"], delimiter=delimiter)
        (paper,) = [validate(record) for record in read_csv(path)]
        assert (paper.title, paper.authors, paper.year) == ("A Title", ("Ann One", "Bob Two"), 2020)


def test_bad_rows_are_reported_by_line_and_good_rows_land(tmp_path):
    path = tmp_path / "papers.csv"
    path.write_text(
        "title,authors,year\n"
        "A Good Paper,Ann One; Bob Two,2020\n"
        ",Nobody,2021\n"
        "Year Out Of Range,Carl,1850\n"
        "Too Many Cells,Dan,2020,extra\n"
        "Another Good Paper,Eve,2022\n",
        encoding="utf-8",
    )
    results = [validate(record) for record in read_csv(path)]
    errors = [result for result in results if isinstance(result, IngestError)]
    assert [(error.location, error.problem) for error in errors] == [
        ("line 3", "missing required field 'title'"),
        ("line 4", "field 'year' is 1850, outside 1900..2100"),
        ("line 5", "1 cell(s) more than the header's columns"),
    ]
    papers, summary = ingest_into(tmp_path / "data", [path])
    assert sorted(paper.title for paper in papers.values()) == ["A Good Paper", "Another Good Paper"]
    assert summary.rejected == 3


def test_header_without_title_is_a_file_error(tmp_path):
    path = tmp_path / "papers.csv"
    path.write_text("name,year\nA,2020\n", encoding="utf-8")
    with pytest.raises(SourceError, match="no 'title' column"):
        list(read_csv(path))
