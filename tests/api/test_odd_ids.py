"""Ids with a slash (old-style arXiv: arXiv-2001-cs/0101001) or a comma reach their paper
everywhere: the API, the page and its links, similar papers, and export."""

from __future__ import annotations

import re
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.server import create_app
from served_papers import TEST_HOSTS, build_served_data_dir

SLASH_ID = "arXiv-2001-cs/0101001"
COMMA_ID = "TEST-2024-a,b"
PLAIN_ID = "TEST-2024-a"  # what a comma split of COMMA_ID would wrongly find
ODD_RECORDS = [
    {"id": SLASH_ID, "title": "Quokka grammars for old arXiv identifiers", "venue": "arXiv", "year": 2001,
     "authors": ["Old Style"], "abstract": "Identifiers from before 2007 carry the archive and a slash."},
    {"id": COMMA_ID, "title": "Quokka commas inside identifiers", "venue": "ICLR", "year": 2024,
     "authors": ["Comma Person"], "abstract": "An identifier with a comma must not be split in two."},
    {"id": PLAIN_ID, "title": "Quokka plain identifier", "venue": "ICLR", "year": 2024,
     "authors": ["Plain Person"], "abstract": "The first half of the comma identifier, as a paper of its own."},
]


@pytest.fixture(scope="module")
def odd_client(sample_records, tmp_path_factory):
    data_dir = build_served_data_dir(tmp_path_factory.mktemp("odd_ids"), [*sample_records[:30], *ODD_RECORDS])
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize("paper_id", [SLASH_ID, COMMA_ID])
@pytest.mark.parametrize("encode", [True, False], ids=["quoted", "raw"])
def test_the_api_answers_for_odd_ids(odd_client, paper_id, encode):
    path = quote(paper_id, safe="") if encode else paper_id
    paper = odd_client.get(f"/api/papers/{path}")
    assert paper.status_code == 200 and paper.json()["id"] == paper_id
    similar = odd_client.get(f"/api/papers/{path}/similar")
    assert similar.status_code == 200 and similar.json()["paper_id"] == paper_id
    assert paper_id not in [hit["paper"]["id"] for hit in similar.json()["hits"]]


def test_a_missing_id_with_a_slash_is_a_404(odd_client):
    response = odd_client.get("/api/papers/arXiv-2001-cs/9999999")
    assert response.status_code == 404 and "arXiv-2001-cs/9999999" in response.json()["message"]


@pytest.mark.parametrize("paper_id", [SLASH_ID, COMMA_ID])
def test_the_page_links_reach_odd_ids(odd_client, paper_id):
    results = odd_client.get("/", params={"q": "quokka", "mode": "keyword", "lang": "en"}, headers={"accept": "text/html"})
    links = re.findall(r'href="(/paper/[^"]+)"', results.text)
    page_link = next(link for link in links if link.startswith(f"/paper/{quote(paper_id, safe='')}?"))
    similar_link = next(link for link in links if link.startswith(f"/paper/{quote(paper_id, safe='')}/similar?"))
    page = odd_client.get(page_link.replace("&amp;", "&"), headers={"accept": "text/html"})
    title = next(record["title"] for record in ODD_RECORDS if record["id"] == paper_id)
    assert page.status_code == 200 and f"<h1>{title}</h1>" in page.text.replace('<h1 class="title">', "<h1>")
    similar = odd_client.get(similar_link.replace("&amp;", "&"), headers={"accept": "text/html"})
    assert similar.status_code == 200
    export_link = re.search(r'href="(/api/export\?[^"]+)" data-copy', page.text).group(1).replace("&amp;", "&")
    bibtex = odd_client.get(export_link)
    assert bibtex.status_code == 200 and bibtex.headers["x-exported-count"] == "1"


def test_export_takes_repeated_ids_with_slashes_and_commas(odd_client):
    response = odd_client.get("/api/export", params=[("ids", SLASH_ID), ("ids", COMMA_ID), ("format", "json")])
    assert response.status_code == 200
    assert [record["id"] for record in orjson.loads(response.content)] == [SLASH_ID, COMMA_ID]


def test_an_id_with_a_comma_is_not_split_but_a_list_of_plain_ids_still_is(odd_client):
    one = odd_client.get("/api/export", params={"ids": COMMA_ID, "format": "json"})
    assert [record["id"] for record in orjson.loads(one.content)] == [COMMA_ID]
    listed = odd_client.get("/api/export", params={"ids": f"{PLAIN_ID},{SLASH_ID}", "format": "json"})
    assert [record["id"] for record in orjson.loads(listed.content)] == [PLAIN_ID, SLASH_ID]
