"""paperlists raw files ingest to exactly the papers the normalized corpus has for them."""

from __future__ import annotations

import gzip
import re
from dataclasses import replace

import orjson
import pytest
from tests.ingest.conftest import ingest_into, write_jsonl

from papersift.ingest.base import SourceError
from papersift.ingest.paperlists import listing_origin, read_paperlists

# OpenReview venues (keywords, tldr, rejected rows), PMLR and NeurIPS proceedings, a title-only listing.
LISTINGS = [
    "iclr/iclr2018.json.gz",
    "colm/colm2024.json.gz",
    "aistats/aistats2020.json.gz",
    "nips/nips1990.json.gz",
    "nips/nips2017.json.gz",
    "icml/icml2024@d455370183.json.gz",
]


def _corpus_fields(paper):
    return replace(paper, author_ids=(), affiliations=(), citations=None, citations_as_of=None, code_url=None)


@pytest.mark.parametrize("listing", LISTINGS)
def test_raw_listing_matches_normalized_corpus(listing, ml_papers, normalized_by_source, tmp_path):
    raw_path = ml_papers / "raw" / "paperlists" / listing
    _, _, source = listing_origin(raw_path)
    raw_papers, summary = ingest_into(tmp_path / "raw", [raw_path])
    reference_file = write_jsonl(tmp_path / "reference.jsonl", normalized_by_source[source])
    reference_papers, _ = ingest_into(tmp_path / "reference", [reference_file])

    assert summary.rejected == 0, summary.errors[:3]
    assert raw_papers.keys() == reference_papers.keys()
    # The normalized corpus predates schema 3: compare the fields it has (the new ones are
    # checked in tests/ingest/test_paperlists_people.py).
    mismatched = [paper_id for paper_id in raw_papers
                  if _corpus_fields(raw_papers[paper_id]) != _corpus_fields(reference_papers[paper_id])]
    assert mismatched == []
    assert {paper.source for paper in raw_papers.values()} == {source}


def test_rejected_and_withdrawn_submissions_are_skipped_not_rejected(ml_papers, tmp_path):
    raw_path = ml_papers / "raw" / "paperlists" / "iclr" / "iclr2018.json.gz"
    statuses = [row["status"] for row in orjson.loads(gzip.decompress(raw_path.read_bytes()))]
    papers, summary = ingest_into(tmp_path / "data", [raw_path])
    not_accepted = sum(status in ("Reject", "Withdraw", "Active") for status in statuses)
    assert summary.skipped == not_accepted > 0
    assert len(papers) == len(statuses) - not_accepted
    assert {paper.status for paper in papers.values()} <= {"Poster", "Oral", "Workshop", "Poster Workshop", "Oral Workshop"}


def test_listing_origin_reads_venue_year_and_commit(tmp_path):
    assert listing_origin(tmp_path / "nips" / "nips2024@ae3ec4add0.json.gz") == (
        "NeurIPS", 2024, "paperlists@ae3ec4add0:nips/nips2024.json")
    with pytest.raises(SourceError, match=re.escape("<venue><year>.json")):
        listing_origin(tmp_path / "papers.json")


def test_bad_rows_are_reported_and_good_rows_kept(tmp_path):
    listing = tmp_path / "uai" / "uai2022.json"
    listing.parent.mkdir()
    rows = [
        {"id": "a1", "title": "A good paper on causal graphs", "author": "Ann One; Bob Two", "status": "Poster", "track": "main",
         "site": "https://proceedings.mlr.press/v180/one22a.html"},
        {"id": "a2", "title": None, "author": "Carl Three"},
        {"id": "a3", "title": "Authors of the wrong type", "author": 17},
        "not an object",
        {"id": "a5", "title": "A topic of the wrong type", "primary_area": 5},
    ]
    listing.write_bytes(orjson.dumps(rows))
    records = list(read_paperlists(listing))
    assert [record.location for record in records] == ["record 1", "record 2", "record 3", "record 4", "record 5"]
    papers, summary = ingest_into(tmp_path / "data", [listing])
    assert list(papers) == ["UAI-2022-a1"]
    assert papers["UAI-2022-a1"].authors == ("Ann One", "Bob Two")
    problems = [str(error) for error in summary.errors]
    assert "record 2 (id UAI-2022-a2): missing required field 'title'" in problems[0]
    assert "record 3" in problems[1] and "'authors' must be a list of strings, got int" in problems[1]
    assert "record 4" in problems[2] and "must be a JSON object" in problems[2]
    assert "record 5" in problems[3] and "field 'primary_area' must be a string, got int" in problems[3]
