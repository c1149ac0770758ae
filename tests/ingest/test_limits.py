"""Unbounded and odd input: a line over the cap is rejected while reading (memory stays
bounded) and reading goes on; compression is found by content, not by name; a device or
an oversized whole-document file is refused with one line."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import zlib
from pathlib import Path

import orjson
from tests.ingest.conftest import ingest_into

from papersift.ingest import base
from write_checks import synthetic_records, write_jsonl

PAPERSIFT = str(Path(sys.executable).parent / "papersift")
HUGE_LINE_MB = 128  # held even once it would pass the 64 MB margin below


def _gzip_member(payload: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip member
    return compressor.compress(payload) + compressor.flush()


def _gzip_bomb(path: Path, good: list[dict]) -> Path:
    """A small .jsonl.gz whose second line is one HUGE_LINE_MB-megabyte string: concatenated
    gzip members (a valid gzip file), the repeated one compressed once."""
    megabyte = _gzip_member(b"a" * (1 << 20))
    parts = [_gzip_member(orjson.dumps(good[0]) + b'\n{"id": "huge", "title": "'), megabyte * HUGE_LINE_MB,
             _gzip_member(b'"}\n' + b"".join(orjson.dumps(record) + b"\n" for record in good[1:]))]
    path.write_bytes(b"".join(parts))
    return path


def _run_measured(command: list[str], tmp_path: Path) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in MiB) of a child process."""
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, out_path.read_text(), err_path.read_text(), usage.ru_maxrss // 1024


def test_a_huge_line_is_rejected_while_reading_with_bounded_memory(tmp_path):
    good = synthetic_records("around-the-bomb", 3)
    bomb = _gzip_bomb(tmp_path / "bomb.jsonl.gz", good)
    assert bomb.stat().st_size < 1_000_000
    small = write_jsonl(tmp_path / "small.jsonl", synthetic_records("baseline", 3))
    _, _, _, baseline_mb = _run_measured([PAPERSIFT, "ingest", str(small), "--data-dir", str(tmp_path / "a")], tmp_path)
    code, out, _err, peak_mb = _run_measured(
        [PAPERSIFT, "ingest", str(bomb), "--data-dir", str(tmp_path / "b"), "--json"], tmp_path)
    summary = orjson.loads(out)
    assert code == 1 and (summary["added"], summary["rejected"]) == (3, 1)  # reading went on after the line
    assert summary["errors"] == [(f"{bomb}:line 2: line is {HUGE_LINE_MB * 2**20 + 28:,} bytes, over the 8 MiB "
                                 "limit for one record; skipped")]
    # Before the cap the process held the whole line several times over (2.5 GB for 600 MB).
    assert peak_mb < baseline_mb + 64, (peak_mb, baseline_mb)


def test_gzip_content_is_read_whatever_the_file_is_called(tmp_path):
    records = synthetic_records("gz", 5)
    payload = gzip.compress(b"".join(orjson.dumps(record) + b"\n" for record in records))
    named_jsonl = tmp_path / "export.jsonl"  # gzip content, a plain name
    named_jsonl.write_bytes(payload)
    no_extension = tmp_path / "export.data"  # found by sniffing the decompressed content
    no_extension.write_bytes(payload)
    for path in (named_jsonl, no_extension):
        papers, summary = ingest_into(tmp_path / f"data-{path.suffix[1:]}", [path])
        assert summary.errors == [] and set(papers) == {record["id"] for record in records}


def test_a_device_is_refused_with_one_line(tmp_path):
    for format_name in (None, "jsonl"):
        papers, summary = ingest_into(tmp_path / f"data-{format_name}", [Path("/dev/zero")], format_name)
        assert papers == {}
        assert [str(error) for error in summary.errors] == ["/dev/zero:file: not a regular file (a device, pipe or socket)"]


def test_a_whole_document_over_the_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "MAX_DOCUMENT_BYTES", 1 << 20)
    rows = ["title,year,venue"] + [f"A paper about topic number {n},2024,ICML" for n in range(40_000)]
    big_csv = tmp_path / "big.csv"
    big_csv.write_text("\n".join(rows) + "\n")
    assert big_csv.stat().st_size > 1 << 20
    papers, summary = ingest_into(tmp_path / "data", [big_csv])
    assert papers == {}
    assert [error.problem for error in summary.errors] == [
        ("file is over 1,048,576 bytes (decompressed), the limit for a format read whole; split it, or convert it "
        "to JSON Lines, which is read line by line")]
