"""BibTeX / CSV / JSON export, checked by reading each format back with its own parser."""

from __future__ import annotations

import csv
import io

import bibtexparser
import orjson
import pytest

from papersift.export import (
    CSV_COLUMNS,
    EXPORT_FORMATS,
    bibtex_key,
    export_papers,
    proceedings_name,
    to_bibtex,
    to_csv,
    to_json,
)
from papersift.record import paper_from_dict


@pytest.fixture(scope="module")
def papers(sample_records):
    return [paper_from_dict(record) for record in sample_records[:300]]


def test_bibtex_parses_back_with_every_paper_and_field(papers):
    library = bibtexparser.parse_string(to_bibtex(papers))
    assert not library.failed_blocks
    assert len(library.entries) == len(papers)
    for entry, paper in zip(library.entries, papers):
        assert entry["title"].replace("\\&", "&").replace("\\%", "%").replace("\\#", "#") == paper.title
        assert entry["author"].split(" and ") == list(paper.authors)
        assert entry["year"] == str(paper.year) and entry["booktitle"] == proceedings_name(paper.venue)
        assert entry.entry_type == "inproceedings"


def test_bibtex_cites_the_proceedings_without_abstract_or_status():
    """Issue 28 item 5: `booktitle = {ICLR}`, the whole abstract and `note = {Poster}` were exported."""
    paper = paper_from_dict({"title": "A poster", "authors": ["A B"], "year": 2024, "venue": "ICLR", "status": "Poster",
                             "abstract": "A long abstract that a reference list has no use for, at all."})
    entry = bibtexparser.parse_string(to_bibtex([paper])).entries[0]
    assert entry["booktitle"] == "International Conference on Learning Representations (ICLR)"
    assert "abstract" not in entry.fields_dict and "note" not in entry.fields_dict
    assert proceedings_name("NIPS") == proceedings_name("neurips") == "Advances in Neural Information Processing Systems (NeurIPS)"
    assert proceedings_name("Some Workshop") == "Some Workshop" and proceedings_name(None) is None


def test_bibtex_keys_are_unique_and_readable(papers):
    doubled = papers[:20] + papers[:20]
    keys = [entry.key for entry in bibtexparser.parse_string(to_bibtex(doubled)).entries]
    assert len(set(keys)) == 40
    assert keys[20] == keys[0] + "a"
    paper = paper_from_dict({"title": "The Attention Mechanism Revisited", "authors": ["Léa Müller-Dupont"], "year": 2021})
    assert bibtex_key(paper) == "mullerdupont2021attention"


def test_bibtex_escapes_latex_specials_and_survives_unbalanced_braces():
    hostile = paper_from_dict({
        "title": "50% faster {GPU} kernels & #tags with $\\ell_1$", "authors": ["A B"], "year": 2020, "venue": "ICML",
        "keywords": ["an unbalanced } brace", "{another that never closes"],
    })
    after = paper_from_dict({"title": "The paper after it", "authors": ["C D"], "year": 2021})
    library = bibtexparser.parse_string(to_bibtex([hostile, after]))
    assert not library.failed_blocks and len(library.entries) == 2
    assert library.entries[0]["title"] == "50\\% faster {GPU} kernels \\& \\#tags with $\\ell_1$"
    assert "{" not in library.entries[0]["keywords"] and library.entries[1]["title"] == "The paper after it"


def test_csv_round_trips_and_defuses_formulas(papers):
    formula = paper_from_dict({"title": "=HYPERLINK(\"http://evil\")", "authors": ["+Plus", "@At"], "year": 2020})
    rows = list(csv.DictReader(io.StringIO(to_csv([*papers, formula]))))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == len(papers) + 1
    for row, paper in zip(rows, papers):
        assert row["id"] == paper.id and row["title"] == paper.title and row["authors"] == "; ".join(paper.authors)
        assert row["abstract"] == (paper.abstract or "")
    assert rows[-1]["title"].startswith("'=") and rows[-1]["authors"] == "'+Plus; @At"


def test_json_round_trips(papers):
    records = orjson.loads(to_json(papers))
    assert [paper_from_dict(record) for record in records] == papers
    assert all("source" not in record for record in records)


def test_export_papers_dispatches_and_rejects_unknown_formats(papers):
    assert set(EXPORT_FORMATS) == {"bibtex", "csv", "json", "ris", "csl-json"}
    assert export_papers(papers[:2], "csv") == to_csv(papers[:2])
    with pytest.raises(ValueError, match="docx"):
        export_papers(papers[:2], "docx")
