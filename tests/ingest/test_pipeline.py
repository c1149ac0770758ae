"""The ingest run: every bad-input case is reported by file, line and problem; good records land."""

from __future__ import annotations

import gzip

import orjson
import pytest
from tests.ingest.conftest import ingest_into, write_jsonl

from papersift.ingest.pipeline import StrictModeStop, ingest_paths
from papersift.store import Store


@pytest.fixture()
def good_records(sample_records) -> list[dict]:
    return sample_records[:20]


def _bad_file(path, good_records) -> tuple:
    """A JSONL file with one of each bad case between good lines; (path, {line: problem})."""
    lines = [orjson.dumps(record) for record in good_records[:3]]
    invalid_utf8 = b'{"id": "x-8", "title": "Bad bytes \xff\xfe here"}'
    bad_byte = invalid_utf8.index(0xFF)
    bad = {
        '{"id": "x-1", "title": "Broken", "year": 2020': "broken JSON",
        orjson.dumps({"id": "x-2", "authors": ["Ann"], "year": 2020}): "missing required field 'title'",
        orjson.dumps({"id": "x-3", "title": ["A", "list"], "year": 2020}): "field 'title' must be a string, got list",
        orjson.dumps({"id": "x-4", "title": "Authors as a number", "authors": 7}): "field 'authors' must be a list of strings, got int",
        orjson.dumps({"id": "x-5", "title": "Year as text", "year": "next year"}): "field 'year' must be an integer",
        orjson.dumps({"id": "x-6", "title": "From the future", "year": 2190}): "field 'year' is 2190, outside 1900..2100",
        orjson.dumps({"id": "x-7", "title": "Huge abstract", "abstract": "a" * 1_000_000}):
            "field 'abstract' is 1,000,000 characters long (limit 100,000)",
        orjson.dumps({"id": "x-9", "title": "Huge line", "abstract": "a" * 10_000_000}):
            "bytes, over the 8 MiB limit for one record; skipped",
        invalid_utf8: f"invalid UTF-8 at byte {bad_byte}",
        b"[1, 2, 3]": "record must be a JSON object, got list",
    }
    expected = {}
    for raw, problem in bad.items():
        lines.append(raw.encode() if isinstance(raw, str) else raw)
        expected[f"line {len(lines)}"] = problem
    lines.extend(orjson.dumps(record) for record in good_records[3:])
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, expected


def test_each_bad_record_is_reported_and_the_good_ones_land(good_records, tmp_path):
    path, expected = _bad_file(tmp_path / "mixed.jsonl", good_records)
    papers, summary = ingest_into(tmp_path / "data", [path])
    assert set(papers) == {record["id"] for record in good_records}
    reported = {error.location: error for error in summary.errors}
    assert reported.keys() == expected.keys()
    for location, problem in expected.items():
        assert reported[location].path == str(path)
        assert problem in reported[location].problem, (location, reported[location].problem)
    assert summary.rejected == len(expected) and summary.counts.added == len(good_records)
    assert "mixed.jsonl:line 5 (id x-2): missing required field 'title'" in str(reported["line 5"])


def test_errors_are_kept_in_the_store_per_run(good_records, tmp_path):
    path, expected = _bad_file(tmp_path / "mixed.jsonl", good_records)
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, [path])
    assert {row["location"] for row in store.read("SELECT location FROM ingest_errors WHERE run_id=?", (summary.run_id,))} == set(expected)


def test_empty_files_are_reported(tmp_path):
    empty_jsonl = tmp_path / "empty.jsonl"
    empty_jsonl.write_bytes(b"")
    blank_lines = tmp_path / "blank.jsonl"
    blank_lines.write_bytes(b"\n\n  \n")
    empty_gzip = tmp_path / "empty.jsonl.gz"
    empty_gzip.write_bytes(gzip.compress(b""))
    papers, summary = ingest_into(tmp_path / "data", [empty_jsonl, blank_lines, empty_gzip])
    assert papers == {}
    assert [(error.path, error.location, error.problem) for error in summary.errors] == [
        (str(path), "file", "empty file: no records") for path in (empty_jsonl, blank_lines, empty_gzip)]


def test_truncated_gzip_keeps_the_lines_before_the_cut(sample_records, tmp_path):
    whole = gzip.compress(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[:500]))
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(whole[: len(whole) // 2])
    papers, summary = ingest_into(tmp_path / "data", [truncated])
    (error,) = summary.errors
    assert error.problem.startswith("corrupt or truncated gzip after line ")
    lines_read = int(error.problem.split("after line ")[1].split(":")[0])
    assert 0 < len(papers) == lines_read < 500
    assert error.location == f"line {lines_read + 1}"


def test_strict_stops_at_the_first_rejected_record(good_records, tmp_path):
    path, _expected = _bad_file(tmp_path / "mixed.jsonl", good_records)
    later_file = write_jsonl(tmp_path / "later.jsonl", good_records[:1])
    store = Store(tmp_path / "data")
    with pytest.raises(StrictModeStop) as stop:
        ingest_paths(store, [path, later_file], strict=True)
    assert stop.value.error.location == "line 4"
    assert store.count() == 3  # the good lines before the bad one are kept


def test_within_a_run_the_first_record_wins_and_later_runs_update(sample_records, tmp_path):
    first = dict(sample_records[0], abstract=None, keywords=[])
    second = dict(sample_records[0], title=sample_records[0]["title"] + " (extended)", keywords=["k1"])
    path = write_jsonl(tmp_path / "twice.jsonl", [first, second])
    papers, summary = ingest_into(tmp_path / "data", [path])
    paper = papers[first["id"]]
    assert paper.title == first["title"]  # first row wins
    assert paper.abstract and paper.keywords == ("k1",)  # later rows fill what it lacks
    assert len(papers) == 1

    rerun, summary = ingest_into(tmp_path / "data", [path])
    assert rerun == papers and summary.counts.changed == 0

    update = write_jsonl(tmp_path / "update.jsonl", [dict(sample_records[0], title="A corrected title")])
    updated, summary = ingest_into(tmp_path / "data", [update])
    assert updated[first["id"]].title == "A corrected title" and summary.counts.updated == 1


def test_the_first_record_wins_across_batches_of_one_run(sample_records, tmp_path, monkeypatch):
    """A run's ids are asked of the store at each flush, not kept in memory: a repeat of an id
    in a later batch of the same run still only fills gaps, and one that adds nothing counts
    as unchanged; the next run still updates."""
    monkeypatch.setattr("papersift.ingest.pipeline.BATCH_SIZE", 2)
    first = dict(sample_records[0], abstract=None, keywords=[])
    second = dict(sample_records[0], title=sample_records[0]["title"] + " (extended)", keywords=["k1"])
    records = [first, sample_records[1], sample_records[2], second, sample_records[3], dict(first)]
    path = write_jsonl(tmp_path / "batches.jsonl", records)
    papers, summary = ingest_into(tmp_path / "data", [path])
    paper = papers[first["id"]]
    assert paper.title == first["title"] and paper.abstract and paper.keywords == ("k1",)
    assert len(papers) == 4 and summary.counts.unchanged == 1

    update = write_jsonl(tmp_path / "update.jsonl", [dict(sample_records[0], title="A corrected title")])
    updated, summary = ingest_into(tmp_path / "data", [update])
    assert updated[first["id"]].title == "A corrected title" and summary.counts.updated == 1


def test_second_run_changes_nothing_and_merges_duplicates_across_sources(sample_jsonl, sample_records, tmp_path):
    first, summary = ingest_into(tmp_path / "data", [sample_jsonl])
    assert summary.counts.added == len(sample_records)
    second, summary = ingest_into(tmp_path / "data", [sample_jsonl])
    assert second == first and summary.counts.unchanged == len(sample_records) and summary.counts.changed == 0
    # The same paper under another source id (same title + year + venue) merges into the first.
    alias = dict(sample_records[5], id="OTHER-1", abstract=None)
    merged, summary = ingest_into(tmp_path / "data", [write_jsonl(tmp_path / "alias.jsonl", [alias])])
    assert summary.counts.merged == 1 and len(merged) == len(first)
