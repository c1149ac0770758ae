"""RIS and CSL-JSON export (papersift.export): read back with rispy and json to the same
papers (ids, titles, author order, year, venue), the BibTeX citation keys, CSL-JSON valid
against the CSL 1.0.2 data schema (tests/fixtures/csl, vendored with its licence)."""

from __future__ import annotations

import re
from pathlib import Path

import bibtexparser
import jsonschema_rs
import orjson
import pytest
import rispy

from papersift.export import bibtex_key, citation_keys, export_papers, split_name, to_bibtex, to_csl_json, to_ris
from papersift.record import paper_from_dict
from served_papers import HOSTILE_ID, XSS_TITLE

CSL_SCHEMA = Path(__file__).parent / "fixtures" / "csl" / "csl-data.json"
ODD_RECORDS = [
    {"id": "arXiv-2001-cs/0101001", "title": "A preprint; with [brackets], \"quotes\" & <tags>", "venue": "arXiv",
     "year": 2001, "authors": ["Plato", "Ludwig van Beethoven", "Wang, Yingbin Liang"],
     "abstract": "Two lines\nof abstract, the second\r\nwith a CRLF, both kept as one line in RIS.",
     "keywords": ["a; b", "c"]},
    {"id": "NOVENUE-0-x", "title": "No venue, no year, no authors"},
]


@pytest.fixture(scope="module")
def papers(sample_records):
    sample = [paper_from_dict(record) for record in sample_records[::7]]
    return sample + [paper_from_dict(record) for record in ODD_RECORDS]


def joined(given: str, family: str) -> str:
    return f"{given} {family}" if given else family


# RIS reference types (the RIS specification): a conference paper CPAPER, a preprint UNPB, a
# work of unknown kind GEN. Every sampled paper is a conference paper; the odd records are not.
CONFERENCES = {"NeurIPS", "ICML", "ICLR", "AISTATS", "COLT", "UAI", "COLM"}
ODD_RIS_TYPES = {"arXiv-2001-cs/0101001": "UNPB", "NOVENUE-0-x": "GEN"}


def test_ris_reads_back_to_the_same_papers(papers):
    assert {paper.venue for paper in papers[:-len(ODD_RECORDS)]} <= CONFERENCES
    entries = rispy.loads(to_ris(papers))
    assert len(entries) == len(papers)
    for entry, paper, key in zip(entries, papers, citation_keys(papers)):
        assert entry["accession_number"] == paper.id and entry["id"] == key
        assert entry["title"] == paper.title
        authors = [joined(*reversed(author.split(", ", 1))) if ", " in author else author
                   for author in entry.get("authors", [])]
        assert authors == list(paper.authors)
        assert entry.get("year") == (str(paper.year) if paper.year else None)
        assert entry.get("secondary_title") == paper.venue
        assert entry["type_of_reference"] == ODD_RIS_TYPES.get(paper.id, "CPAPER")
        # one line in RIS (ODD_RECORDS[0] has a CRLF), absent when the paper has none (ODD_RECORDS[1])
        assert entry.get("abstract") == (" ".join(paper.abstract.split()) if paper.abstract else None)


def test_csl_json_reads_back_to_the_same_papers(papers):
    items = orjson.loads(to_csl_json(papers))
    assert len(items) == len(papers)
    for item, paper, key in zip(items, papers, citation_keys(papers)):
        assert item["custom"]["papersift_id"] == paper.id and item["id"] == item["citation-key"] == key
        assert item["title"] == paper.title
        names = [name.get("literal") or joined(name["given"], name["family"]) for name in item.get("author", [])]
        assert names == list(paper.authors)
        assert item.get("issued", {}).get("date-parts") == ([[paper.year]] if paper.year else None)
        assert item.get("container-title", item.get("publisher")) == paper.venue
        assert item["type"] == {"arXiv": "article", None: "document"}.get(paper.venue, "paper-conference")
        assert item.get("abstract") == paper.abstract


def test_csl_json_is_valid_against_the_csl_data_schema(papers):
    validator = jsonschema_rs.validator_for(orjson.loads(CSL_SCHEMA.read_bytes()))
    items = orjson.loads(to_csl_json(papers))
    errors = [error.message for error in validator.iter_errors(items)]
    assert errors == []
    broken = [{**items[0], "issued": {"date-parts": "2020"}}, {**items[1], "unknown-field": 1}]
    assert len(list(validator.iter_errors(broken))) >= 2  # the schema does catch what it should


def test_keys_are_the_bibtex_keys_in_every_format(papers):
    bibtex_keys = [entry.key for entry in bibtexparser.parse_string(to_bibtex(papers)).entries]
    keys = citation_keys(papers)
    assert keys == bibtex_keys and len(set(keys)) == len(keys)
    assert re.findall(r"^ID  - (.+)$", to_ris(papers), re.MULTILINE) == keys
    assert [item["id"] for item in orjson.loads(to_csl_json(papers))] == keys


def test_a_papers_key_does_not_change_with_the_export_it_is_in(papers):
    """Alone, a paper's key is its BibTeX key; a key no other paper shares stays the same in any
    export (only clashing keys get a, b, c... in the order of the export)."""
    keys = citation_keys(papers)
    assert all(citation_keys([paper]) == [bibtex_key(paper)] for paper in papers)
    base_keys = [bibtex_key(paper) for paper in papers]
    unique = [index for index, key in enumerate(base_keys) if base_keys.count(key) == 1]
    reversed_keys = citation_keys(list(reversed(papers)))
    assert len(unique) > len(papers) / 2
    assert all(reversed_keys[len(papers) - 1 - index] == keys[index] for index in unique)


def test_export_papers_serves_both_formats(papers):
    assert export_papers(papers[:3], "ris") == to_ris(papers[:3])
    assert export_papers(papers[:3], "csl-json") == to_csl_json(papers[:3])


@pytest.mark.parametrize(("name", "parts"), [
    ("Yoshua Bengio", ("Yoshua", "Bengio")), ("Plato", ("", "Plato")),
    ("Ludwig van Beethoven", ("Ludwig van", "Beethoven")),
])
def test_names_split_at_the_last_word(name, parts):
    assert split_name(name) == parts


@pytest.mark.parametrize(("export_format", "media_type"), [
    ("ris", "application/x-research-info-systems"), ("csl-json", "application/vnd.citationstyles.csl+json"),
])
def test_the_api_exports_a_search_and_a_paper_in_both_formats(client, export_format, media_type):
    search = client.get("/api/search?q=transformer&mode=keyword&size=100").json()
    response = client.get(f"/api/export?q=transformer&mode=keyword&format={export_format}")
    assert response.status_code == 200 and response.headers["content-type"].startswith(media_type)
    if export_format == "ris":
        exported_ids = [entry["accession_number"] for entry in rispy.loads(response.text)]
    else:
        exported_ids = [item["custom"]["papersift_id"] for item in orjson.loads(response.content)]
    assert exported_ids[:len(search["hits"])] == [hit["paper"]["id"] for hit in search["hits"]]
    assert len(exported_ids) == search["total"]


def test_a_paper_page_links_its_ris_and_csl_json(client):
    html = client.get(f"/paper/{HOSTILE_ID}?lang=en").text
    for export_format in ("ris", "csl-json"):
        href = f'href="/api/export?ids={HOSTILE_ID}&amp;format={export_format}"'
        assert href in html
        response = client.get(f"/api/export?ids={HOSTILE_ID}&format={export_format}")
        assert response.status_code == 200 and XSS_TITLE in response.text
