"""arXiv Atom (API) and OAI-PMH (arXiv metadata format) pages give the same records."""

from __future__ import annotations

import pytest
from tests.ingest.conftest import FIXTURES

from papersift.ingest.arxiv import read_arxiv_atom, read_oai_pmh
from papersift.ingest.base import SourceError
from papersift.ingest.pipeline import IngestError, validate
from papersift.record import paper_from_dict

ARXIV = FIXTURES / "arxiv"
CORPUS_IDS = {  # the corpus papers the fixture entries are (conference versions)
    "1703.03400": "ICML-2017-495", "1706.02216": "NeurIPS-2017-8896", "1706.03762": "NeurIPS-2017-9372",
    "1706.06083": "ICLR-2018-rJzIBfZAb", "1710.10903": "ICLR-2018-rJXMpikCZ",
}


def _papers(reader, paths):
    return [validate(record) for path in paths for record in reader(path) if not record.skipped]


def test_atom_pages(sample_records):
    papers = _papers(read_arxiv_atom, [ARXIV / f"query-start{start}.atom" for start in (0, 2, 4)])
    assert [paper.id for paper in papers] == [f"arXiv-2017-{arxiv_id}" for arxiv_id in CORPUS_IDS]
    attention = papers[2]
    assert attention.url == "https://arxiv.org/abs/1706.03762"  # version v2 dropped
    assert attention.pdf == "https://arxiv.org/pdf/1706.03762"
    assert (attention.venue, attention.year, attention.keywords) == ("arXiv", 2017, ("cs.CL", "cs.LG"))


def test_atom_and_oai_agree_and_carry_the_corpus_text(named_records):
    corpus = {record["id"]: paper_from_dict(record) for record in named_records}
    assert set(corpus) == set(CORPUS_IDS.values())
    from_atom = _papers(read_arxiv_atom, sorted(ARXIV.glob("query-start*.atom")))
    from_oai = _papers(read_oai_pmh, [ARXIV / "oai-page1.xml", ARXIV / "oai-page2.xml"])
    assert [paper.to_dict() | {"source": None} for paper in from_atom] == [paper.to_dict() | {"source": None} for paper in from_oai]
    assert len(from_oai) == len(CORPUS_IDS)
    for paper in from_oai:
        reference = corpus[CORPUS_IDS[paper.id.split("-", 2)[2]]]
        assert (paper.title, paper.abstract, paper.authors) == (reference.title, reference.abstract, reference.authors)


def test_deleted_oai_records_are_skipped():
    records = list(read_oai_pmh(ARXIV / "oai-page1.xml"))
    assert [record.skipped for record in records] == [None, None, None, "deleted record"]
    assert records[3].location == "record 4 (oai:arXiv.org:1706.99999)"


def test_api_error_entry_is_reported():
    (record,) = list(read_arxiv_atom(ARXIV / "query-error.atom"))
    result = validate(record)
    assert isinstance(result, IngestError)
    assert result.problem == "arXiv API error: incorrect id format for 1234.12345v99"


def test_oai_error_is_a_file_error_and_no_records_is_empty():
    with pytest.raises(SourceError, match="OAI-PMH error badArgument: Illegal argument"):
        list(read_oai_pmh(ARXIV / "oai-badargument.xml"))
    assert list(read_oai_pmh(ARXIV / "oai-norecords.xml")) == []


def test_broken_xml_names_the_position(tmp_path):
    path = tmp_path / "page.xml"
    path.write_text('<?xml version="1.0"?>\n<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">\n<ListRecords>\n</OAI-PMH>')
    with pytest.raises(SourceError, match=r"broken XML: mismatched tag: line 4, column 2"):
        list(read_oai_pmh(path))
