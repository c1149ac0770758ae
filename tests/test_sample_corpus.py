"""The sample corpus shipped in the package carries its sources' licences (issue 28 item 5)."""

from __future__ import annotations

import fnmatch
import gzip
import re
from collections import Counter
from pathlib import Path

import orjson
import tomllib

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = ROOT / "src" / "papersift" / "sample_corpus"  # shipped: quickstart's fallback
NOTICE = SAMPLE_CORPUS / "NOTICE"
MIT_PERMISSION = ("The above copyright notice and this permission notice shall be included in all\n"
                  "   copies or substantial portions of the Software.")


def _source_counts() -> Counter:
    counts: Counter = Counter()
    for path in sorted(SAMPLE_CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rb") as handle:
            for line in handle:
                counts[re.split(r"[:@]", orjson.loads(line)["source"])[0]] += 1
    return counts


def test_the_notice_names_every_source_of_the_sample_with_its_rows_and_licence():
    notice = NOTICE.read_text(encoding="utf-8")
    counts = _source_counts()
    assert set(counts) == {"airas-papers-db", "paperlists"}, counts
    assert sum(counts.values()) == 2212
    # the MIT source's copyright line and permission notice travel with its rows
    assert "Copyright (c) 2025 airas-org" in notice and MIT_PERMISSION in notice
    # the source without a licence is said to have none, with the check made and its row count
    assert "THAT REPOSITORY STATES NO LICENCE" in notice
    assert f"{counts['paperlists']:,} of the {sum(counts.values()):,}" in notice
    assert "`source` starts with `airas-papers-db:` (809 of papers.jsonl.gz, 1 title-only row)" in notice
    assert counts["airas-papers-db"] == 809 + 1


def test_the_notice_ships_in_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["papersift"]
    assert any(fnmatch.fnmatch("sample_corpus/NOTICE", pattern) for pattern in patterns), patterns
