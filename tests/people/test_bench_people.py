"""papersift bench people: latency rows for each page kind, and the manifest check names
every venue-year whose count differs."""

from __future__ import annotations

import orjson

from papersift.bench.people import manifest_check, markdown, run
from papersift.store import Store


def test_bench_reports_every_page_kind(people_dir):
    report = run(people_dir, None, repeats=1, log=lambda message: None)
    assert set(report["latency"]) == {"author", "venue", "venue_year", "author_page", "venue_year_page"}
    assert report["latency"]["venue"]["requests"] == 2  # ICLR, COLM
    assert set(report["acceptance"]) == {"ICLR 2017", "ICLR 2018"}
    assert "| ICLR 2018 | 995 | 427 | 42.9% |" in markdown(report)


def test_manifest_check_names_mismatches(people_dir, tmp_path):
    manifest = tmp_path / "manifest.json"
    counts = {"ICLR 2017": 245, "ICLR 2018": 400, "COLM 2024": 299, "COLM 2025": 418}
    manifest.write_bytes(orjson.dumps({"counts": {"papers": counts, "title_only": {"ICLR 2018": 27}}}))
    assert manifest_check(Store(people_dir, readonly=True), manifest)["mismatches"] == {}
    counts["COLM 2025"] = 417
    manifest.write_bytes(orjson.dumps({"counts": {"papers": counts}}))
    found = manifest_check(Store(people_dir, readonly=True), manifest)
    assert found["mismatches"] == {"COLM 2025": {"manifest": 417, "store": 418}, "ICLR 2018": {"manifest": 400, "store": 427}}
