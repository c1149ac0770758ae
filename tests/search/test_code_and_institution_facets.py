"""The "has code" and institution facets, end to end through /api/search: filters, counts
(beside their own filter too), the query language, and the page's links.

The fixture corpus's records carry no affiliations (normalized records), so a few of them get
some here; code links come from the abstracts (record.code_link), as in the real corpus."""

from __future__ import annotations

import os
from collections import Counter

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.index import documents, lexical
from papersift.record import paper_from_dict
from papersift.search.query import parse_query
from papersift.search.tantivy_backend import TantivyBackend
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

INSTITUTIONS = ("Tsinghua University", "MIT", "Google DeepMind")


def _with_affiliations(records: list[dict]) -> list[dict]:
    """Every 7th record gets one affiliation per author, cycling through INSTITUTIONS; every
    21st has a second author at two institutions ('A+B', as the listings write it)."""
    changed = []
    for number, record in enumerate(records):
        if number % 7 == 0 and record["authors"]:
            affiliations = [INSTITUTIONS[(number + at) % 3] for at in range(len(record["authors"]))]
            if number % 21 == 0 and len(affiliations) > 1:
                affiliations[1] = "MIT+Google DeepMind"
            changed.append({**record, "affiliations": affiliations})
        else:
            changed.append(record)
    return changed


@pytest.fixture(scope="module")
def papers(sample_records):
    return [paper_from_dict(record) for record in _with_affiliations(sample_records)]


@pytest.fixture(scope="module")
def facet_client(papers, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("facets")
    store = Store(data_dir)
    store.upsert(papers)
    store.close()
    lexical.build(data_dir)
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        yield client


def _expected_institutions(papers) -> Counter:
    return Counter(name for paper in papers for name in documents.paper_institutions(paper))


def _facet(body: dict, name: str) -> dict[str, int]:
    return {item["value"]: item["count"] for item in body["facets"][name]}


def test_code_facet_counts_and_filters_papers_with_code_links(facet_client, papers):
    with_code = {paper.id for paper in papers if paper.code_url}
    assert len(with_code) > 20  # the fixture's abstracts do hold GitHub links
    browse = facet_client.get("/api/search", params={"mode": "keyword", "size": 1}).json()
    assert _facet(browse, "code") == {"yes": len(with_code)}
    filtered = facet_client.get("/api/search", params={"mode": "keyword", "has_code": "true", "size": 100}).json()
    assert filtered["total"] == len(with_code)
    assert {hit["paper"]["id"] for hit in filtered["hits"]} <= with_code and len(filtered["hits"]) == min(100, len(with_code))
    typed = facet_client.get("/api/search", params={"mode": "keyword", "q": "has:code", "size": 1}).json()
    assert typed["total"] == len(with_code)
    without = facet_client.get("/api/search", params={"mode": "keyword", "q": "-has:code", "size": 1}).json()
    assert without["total"] == len(papers) - len(with_code)


def test_institution_facet_counts_each_paper_once_per_institution(facet_client, papers):
    expected = _expected_institutions(papers)
    assert set(expected) == set(INSTITUTIONS)
    body = facet_client.get("/api/search", params={"mode": "keyword", "size": 1}).json()
    assert _facet(body, "institution") == dict(expected)
    # a query whose matches fit on one page is counted from its rows: the same rule
    word = facet_client.get("/api/search", params={"mode": "keyword", "q": "bandit", "size": 100}).json()
    matched = {hit["paper"]["id"] for hit in word["hits"]}
    assert word["total"] == len(matched) < 100
    assert _facet(word, "institution") == dict(_expected_institutions([p for p in papers if p.id in matched]))


def test_institution_filter_any_case_and_beside_its_own_count(facet_client, papers):
    at_mit = {paper.id for paper in papers if "MIT" in documents.paper_institutions(paper)}
    body = facet_client.get("/api/search", params={"mode": "keyword", "institution": "mit", "size": 100}).json()
    assert body["total"] == len(at_mit) and {hit["paper"]["id"] for hit in body["hits"]} <= at_mit
    assert _facet(body, "institution") == dict(_expected_institutions([p for p in papers if p.id in at_mit]))
    # the page's sidebar counts the institution group as if its own filter were off (values combine with OR)
    html = facet_client.get("/", params={"mode": "keyword", "institution": "MIT", "lang": "en"}).text
    sidebar = html[html.index('data-facet="institution"'):]
    for name, count in _expected_institutions(papers).items():
        assert f'<span class="facet-name">{name}</span> <span class="count">{count:,}</span>' in sidebar
    typed = facet_client.get("/api/search", params={"mode": "keyword", "q": 'institution:"google deepmind" OR affiliation:MIT',
                                                    "size": 1}).json()
    either = {p.id for p in papers if {"MIT", "Google DeepMind"} & set(documents.paper_institutions(p))}
    assert typed["total"] == len(either)
    both = facet_client.get("/api/search", params={"mode": "keyword", "institution": "Tsinghua University",
                                                   "has_code": "true", "size": 100}).json()
    at_both = {p.id for p in papers if p.code_url and "Tsinghua University" in documents.paper_institutions(p)}
    assert both["total"] == len(at_both) and {hit["paper"]["id"] for hit in both["hits"]} == at_both


def test_bad_has_value_is_a_syntax_error(facet_client):
    response = facet_client.get("/api/search", params={"q": "has:pdf", "mode": "keyword"})
    assert response.status_code == 400 and "has: takes code" in response.json()["message"]


def test_page_links_narrow_to_code_and_institution(facet_client):
    html = facet_client.get("/", params={"mode": "keyword", "lang": "en"}).text
    assert 'data-facet="code"' in html and 'href="/?mode=keyword&amp;has_code=true&amp;lang=en"' in html
    assert 'href="/?mode=keyword&amp;institution=MIT&amp;lang=en"' in html
    narrowed = facet_client.get("/", params={"mode": "keyword", "lang": "en", "has_code": "true"}).text
    assert "Code: ✓" in narrowed and 'aria-current="true"' in narrowed


def test_an_update_adds_institutions_without_touching_the_live_generation(sample_records, tmp_path):
    records = _with_affiliations(sample_records[:60])
    store = Store(tmp_path)
    store.upsert([paper_from_dict(record) for record in records])
    first = lexical.build(tmp_path).folder
    before = (first / documents.INSTITUTIONS_FILE).read_bytes()
    kept = tmp_path / "kept.json"  # another name of the live list: an update writing through links would change it
    os.link(first / documents.INSTITUTIONS_FILE, kept)
    newcomer = {**records[1], "id": "NEW-2024-1", "title": "A paper from a new lab",
                "affiliations": ["New Lab+MIT"] + [""] * (len(records[1]["authors"]) - 1)}
    store.upsert([paper_from_dict(newcomer)])
    store.close()
    second = lexical.update(tmp_path).folder
    assert second != first and kept.read_bytes() == before
    names = orjson.loads((second / documents.INSTITUTIONS_FILE).read_bytes())
    assert names[:len(orjson.loads(before))] == orjson.loads(before) and "New Lab" in names  # codes only appended
    facets = TantivyBackend(tmp_path).search(parse_query('institution:"new lab"'), with_facets=True).facets
    assert {item.value: item.count for item in facets["institution"]} == {"New Lab": 1, "MIT": 1}
