"""OpenReview API v2 notes: decisions, v1 notes, bad notes; COLM pages equal the COLM listing."""

from __future__ import annotations

import pytest
from tests.ingest.conftest import FIXTURES, ingest_into

from papersift.ingest.openreview import content_value, read_openreview, status_of, venue_of
from papersift.ingest.pipeline import IngestError, validate

NOTES = FIXTURES / "openreview" / "iclr2024-notes.json"
COLM_PAGES = sorted((FIXTURES / "openreview").glob("colm2024-offset*.json"))


def test_accepted_notes_become_papers_and_other_decisions_are_skipped():
    records = list(read_openreview(NOTES))
    skipped = [record.skipped for record in records if record.skipped]
    assert skipped == ["venueid ICLR.cc/2024/Conference/Rejected_Submission",
                       "venueid ICLR.cc/2024/Conference/Withdrawn_Submission"]
    results = [validate(record) for record in records if not record.skipped]
    papers = [result for result in results if not isinstance(result, IngestError)]
    oral, poster, v1_note = papers
    assert (oral.id, oral.venue, oral.year, oral.status) == ("ICLR-2024-Xq7nM1c0aA", "ICLR", 2024, "Oral")
    assert oral.url == "https://openreview.net/forum?id=Xq7nM1c0aA"
    assert oral.pdf == "https://openreview.net/pdf?id=Xq7nM1c0aA"
    assert oral.area == "representation learning for computer vision, audio, language, and other modalities"
    assert (poster.status, poster.keywords) == ("Poster", ("representation learning",))
    # API v1: bare values, TL;DR key, lowercase 'conference' in the venueid
    assert (v1_note.id, v1_note.year, v1_note.status) == ("ICLR-2017-B1-Hhnslg", 2017, "Poster")
    assert v1_note.tldr.startswith("We learn a metric space")
    (error,) = [result for result in results if isinstance(result, IngestError)]
    assert error.location == "record 6 (note Vv5gH6g4eE)"
    assert error.problem == "field 'title' must be a string, got int"


def test_colm_pages_match_the_colm_listing(ml_papers, tmp_path):
    """The same COLM 2024 papers from OpenReview and from paperlists: same ids and fields."""
    from_openreview, summary = ingest_into(tmp_path / "openreview", COLM_PAGES, "openreview")
    from_listing, _ = ingest_into(tmp_path / "listing", [ml_papers / "raw" / "paperlists" / "colm" / "colm2024.json.gz"])
    assert summary.rejected == 0 and len(from_openreview) == 5
    for paper_id, paper in from_openreview.items():
        listed = from_listing[paper_id]
        for field in ("title", "authors", "abstract", "venue", "year", "keywords", "url", "pdf"):
            assert getattr(paper, field) == getattr(listed, field), (paper_id, field)


@pytest.mark.parametrize(("venue_id", "expected"), [
    ("ICLR.cc/2024/Conference", ("ICLR", 2024)),
    ("NeurIPS.cc/2023/Conference", ("NeurIPS", 2023)),
    ("colmweb.org/COLM/2024/Conference", ("COLM", 2024)),
    ("TMLR", ("TMLR", None)),
])
def test_venue_of(venue_id, expected):
    assert venue_of(venue_id) == expected


def test_status_and_content_values():
    assert status_of("ICLR 2024 spotlight", "ICLR", 2024) == "Spotlight"
    assert status_of("NeurIPS 2023 poster", "NeurIPS", 2023) == "Poster"
    assert status_of("COLM", "COLM", 2024) is None
    assert content_value({"title": {"value": "T"}}, "title") == "T"
    assert content_value({"title": "T"}, "title") == "T"
    assert content_value({}, "title") is None
