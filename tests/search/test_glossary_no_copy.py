"""The no-copy rule on the shipped glossary: no source in its NOTICE holds more than half of the
zhterms dev terms' pairs verbatim (the benchmark's own source, or a copy of it, would), and the
benchmark's source is no source at all (`shared` tier: reads ../shared/data/zhterms)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from papersift.index.glossary_build import COPY_SHARE, notice_sources, reference_pairs
from papersift.ingest.glossary_sources import english_key, load_manifest
from papersift.search import glossary

pytestmark = pytest.mark.shared

MANIFEST = Path(__file__).resolve().parents[2] / "scripts" / "glossary_sources.toml"
BENCHMARK_SOURCE = "artificial-intelligence-terminology-database"


def test_no_source_of_the_glossary_holds_half_the_dev_pairs(shared_data):
    reference = reference_pairs(shared_data / "zhterms" / "queries_dev.jsonl")
    assert len(reference) >= 250
    notice = (glossary.glossary_path().parent / "GLOSSARY-NOTICE.md").read_text(encoding="utf-8")
    sources = notice_sources(notice)
    held: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for entry in glossary.read_entries(glossary.glossary_path()):
        pair = (entry.zh, english_key(entry.en))
        if pair in reference:
            for source in entry.sources:
                held[source].add(pair)
    assert sources and set(held) <= set(sources)
    shares = {source: len(held[source]) / len(reference) for source in sources}
    assert max(shares.values()) <= COPY_SHARE, shares


def test_the_benchmark_source_is_no_glossary_source():
    notice = (glossary.glossary_path().parent / "GLOSSARY-NOTICE.md").read_text(encoding="utf-8").lower()
    named = [f"{source.repo} {source.url}".lower() for source in load_manifest(MANIFEST)]
    named += [line for line in notice.splitlines() if line.startswith(("- repository:", "- url:"))]
    assert len(named) > 10
    for line in named:
        assert BENCHMARK_SOURCE not in line and "jiqizhixin" not in line, line
