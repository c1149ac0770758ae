"""Contract tests for every JSON endpoint, against the real service on a real slice."""

from __future__ import annotations

import csv
import io
import re

import bibtexparser
import orjson
import pytest
from fastapi import APIRouter

from papersift.config import AUTHORS_SHOWN, MAX_PAGE_SIZE
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.server import create_app
from papersift.store import Store
from served_papers import HOSTILE_ID, MANY_AUTHORS_ID, TEST_HOSTS, XSS_TITLE

HIT_KEYS = {"paper", "score", "highlights", "topic_predicted", "topic_confidence", "authors_line"}
SEARCH_KEYS = {"query", "mode", "sort", "page", "size", "pages", "total", "total_counts", "keyword_matches", "hits",
               "facets", "took_ms", "notices", "reading", "intent", "suggestion", "lang"}


@pytest.fixture(scope="module")
def service(served_data_dir):
    return SearchService(served_data_dir)


def test_a_chinese_query_answers_with_its_english_reading(client, service):
    body = client.get("/api/search", params={"q": "卷积神经网络", "mode": "keyword"}).json()
    assert body["reading"]["english"] == "convolutional neural networks"
    term = body["reading"]["terms"][0]
    assert term["chinese"] == "卷积神经网络" and term["english"] == "convolutional neural networks"
    assert isinstance(term["alternatives"], list)
    # a sure reading is searched as the phrase papers write (search/crosslingual.phrase_query), like the quoted English
    assert term["sure"] is True
    assert body["total"] == service.search(SearchRequest(query='"convolutional neural networks"', mode="keyword")).total
    literal = client.get("/api/search", params={"q": "卷积神经网络", "mode": "keyword", "literal": "true"}).json()
    assert literal["reading"] is None and literal["total"] == 0
    assert client.get("/api/search", params={"q": "graph", "mode": "keyword"}).json()["reading"] is None


def test_a_chinese_query_says_every_phrase_it_was_searched_as(client):
    # 反向传播 reads "backpropagation" and is also searched as papers' other spelling (issue 26)
    body = client.get("/api/search", params={"q": "反向传播", "mode": "keyword"}).json()
    assert body["reading"]["english"] == "backpropagation"
    assert any("searched in English as: backpropagation; also as: back-propagation" in notice for notice in body["notices"])


def test_search_returns_the_services_hits_in_order(client, service):
    body = client.get("/api/search", params={"q": "graph neural network", "mode": "keyword"}).json()
    expected = service.search(SearchRequest(query="graph neural network", mode="keyword"))
    assert set(body) == SEARCH_KEYS
    assert body["total"] == expected.total > 20
    assert [hit["paper"]["id"] for hit in body["hits"]] == [hit.paper.id for hit in expected.hits]
    assert len(body["hits"]) == 20 and body["page"] == 1 and body["size"] == 20
    assert body["pages"] == -(-expected.total // 20)
    assert all(set(hit) == HIT_KEYS for hit in body["hits"])


def test_search_hits_carry_highlights_marking_the_query_terms(client):
    hits = client.get("/api/search", params={"q": "reinforcement", "mode": "keyword"}).json()["hits"]
    marked = [hit["highlights"] for hit in hits if "<mark>" in "".join(hit["highlights"].values())]
    assert len(marked) == len(hits) > 0
    assert all("<mark>" in (h.get("title", "") + h.get("abstract", "")) for h in marked)


def test_second_page_continues_the_first(client):
    params = {"q": "learning", "mode": "keyword", "size": 10}
    first = client.get("/api/search", params=params).json()
    second = client.get("/api/search", params={**params, "page": 2}).json()
    both = client.get("/api/search", params={**params, "size": 20}).json()
    assert [h["paper"]["id"] for h in first["hits"] + second["hits"]] == [h["paper"]["id"] for h in both["hits"]]


def test_page_past_the_results_is_empty_not_an_error(client):
    body = client.get("/api/search", params={"q": "transformer", "mode": "keyword", "page": 400}).json()
    assert body["hits"] == [] and body["total"] > 0


def test_filters_narrow_the_search_and_facets_count_it(client):
    everything = client.get("/api/search", params={"q": "learning", "mode": "keyword"}).json()
    venue_counts = {item["value"]: item["count"] for item in everything["facets"]["venue"]}
    narrowed = client.get("/api/search", params={"q": "learning", "mode": "keyword", "venue": "ICLR"}).json()
    assert narrowed["total"] == venue_counts["ICLR"] < everything["total"]
    assert {hit["paper"]["venue"] for hit in narrowed["hits"]} == {"ICLR"}
    years = client.get("/api/search", params={"q": "learning", "mode": "keyword", "year_from": 2020, "year_to": 2021}).json()
    assert years["hits"] and all(2020 <= hit["paper"]["year"] <= 2021 for hit in years["hits"])
    assert set(everything["facets"]) >= {"venue", "year", "area", "subarea", "status"}


def test_repeated_filter_values_mean_any_of_them(client):
    params = [("q", "learning"), ("mode", "keyword"), ("venue", "ICLR"), ("venue", "COLT")]
    body = client.get("/api/search", params=params).json()
    assert {hit["paper"]["venue"] for hit in body["hits"]} <= {"ICLR", "COLT"}
    facets = client.get("/api/search", params={"q": "learning", "mode": "keyword"}).json()["facets"]
    counts = {item["value"]: item["count"] for item in facets["venue"]}
    assert body["total"] == counts["ICLR"] + counts["COLT"]


def test_sort_newest_orders_by_year(client):
    hits = client.get("/api/search", params={"q": "kernel", "mode": "keyword", "sort": "newest"}).json()["hits"]
    years = [hit["paper"]["year"] for hit in hits]
    assert years == sorted(years, reverse=True) and len(set(years)) > 1


def test_authors_line_follows_the_language(client):
    params = {"q": "fifteen authors collaborators", "mode": "keyword"}
    zh = client.get("/api/search", params={**params, "lang": "zh"}).json()["hits"]
    en = client.get("/api/search", params=params, headers={"Accept-Language": "en-US,en;q=0.9"}).json()
    many = next(hit for hit in zh if hit["paper"]["id"] == MANY_AUTHORS_ID)
    assert many["authors_line"].endswith("等") and many["authors_line"].count(",") == AUTHORS_SHOWN - 1
    assert en["lang"] == "en"
    assert next(h for h in en["hits"] if h["paper"]["id"] == MANY_AUTHORS_ID)["authors_line"].endswith(" et al.")


def test_highlights_escape_hostile_text(client):
    hits = client.get("/api/search", params={"q": "bold attention claims", "mode": "keyword"}).json()["hits"]
    hostile = next(hit for hit in hits if hit["paper"]["id"] == HOSTILE_ID)
    assert hostile["paper"]["title"] == XSS_TITLE  # JSON keeps the text as it is
    assert "<script>" not in hostile["highlights"]["abstract"] and "&lt;script&gt;" in hostile["highlights"]["abstract"]


def test_get_paper(client, service):
    body = client.get(f"/api/papers/{HOSTILE_ID}").json()
    paper = service.get(HOSTILE_ID)
    assert body["id"] == paper.id and body["title"] == paper.title and body["authors"] == list(paper.authors)
    assert body["topic"] == "Deep Learning · Attention Mechanisms"
    assert "source" not in body


def test_similar_papers_follow_the_service_and_exclude_the_paper(client, service):
    body = client.get(f"/api/papers/{MANY_AUTHORS_ID}/similar", params={"size": 5}).json()
    ids = [hit["paper"]["id"] for hit in body["hits"]]
    paper = service.get(MANY_AUTHORS_ID)
    if any("shared words" in notice for notice in body["notices"]):  # no vector index: lexical more-like-this
        reference = [pid for pid, _ in service.rank(f"{paper.title}\n{paper.abstract}", k=6)]
    else:
        semantic = service.search(SearchRequest(like_id=MANY_AUTHORS_ID, mode="semantic", size=6, with_facets=False))
        reference = [hit.paper.id for hit in semantic.hits]
    assert body["paper_id"] == MANY_AUTHORS_ID and MANY_AUTHORS_ID not in ids
    assert ids == [pid for pid in reference if pid != MANY_AUTHORS_ID][:5] and len(ids) == 5
    assert "transform" in body["hits"][0]["paper"]["title"].lower() + body["hits"][0]["paper"]["abstract"].lower()


def test_facets_match_a_search_and_the_topic_tree_adds_up(client, served_data_dir):
    body = client.get("/api/facets").json()
    assert body["total"] == Store(served_data_dir, readonly=True).count()
    area_counts = {item["value"]: item["count"] for item in body["facets"]["area"]}
    assert [node["area"] for node in body["topics"]] == list(area_counts)
    assert len(body["topics"]) >= 2
    for node in body["topics"]:
        assert node["count"] == area_counts[node["area"]]
        assert sum(sub["count"] for sub in node["subareas"]) <= node["count"]
    iclr = client.get("/api/facets", params={"venue": "ICLR"}).json()
    assert iclr["total"] == {item["value"]: item["count"] for item in body["facets"]["venue"]}["ICLR"]


def test_export_bibtex_of_ids_parses_back(client, service):
    ids = [HOSTILE_ID, MANY_AUTHORS_ID]
    response = client.get("/api/export", params={"ids": ",".join(ids), "format": "bibtex"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-bibtex")
    library = bibtexparser.parse_string(response.text)
    assert len(library.entries) == 2 and not library.failed_blocks
    assert library.entries[1]["author"].count(" and ") == 14


def test_export_csv_and_json_of_ids(client):
    csv_text = client.get("/api/export", params=[("ids", HOSTILE_ID), ("ids", MANY_AUTHORS_ID), ("format", "csv")]).text
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert [row["id"] for row in rows] == [HOSTILE_ID, MANY_AUTHORS_ID]
    records = orjson.loads(client.get("/api/export", params={"ids": HOSTILE_ID, "format": "json"}).content)
    assert records[0]["title"] == XSS_TITLE


def test_export_of_a_whole_result_set_has_every_hit(client):
    search = client.get("/api/search", params={"q": "learning", "mode": "keyword", "venue": "COLT", "size": MAX_PAGE_SIZE}).json()
    response = client.get("/api/export", params={"q": "learning", "mode": "keyword", "venue": "COLT", "format": "json"})
    exported = orjson.loads(response.content)
    assert len(exported) == search["total"] == int(response.headers["x-exported-count"])
    assert [record["id"] for record in exported[: len(search["hits"])]] == [hit["paper"]["id"] for hit in search["hits"]]


def test_server_timing_header_on_every_response(client):
    for url in ("/api/search?q=x&mode=keyword", "/api/papers/nope", "/"):
        timing = client.get(url).headers["server-timing"]
        assert timing.startswith("app;dur=") and float(timing.split("=")[1]) >= 0


def test_openapi_lists_every_endpoint(client):
    spec = client.get("/openapi.json").json()
    assert {"/api/search", "/api/papers/{paper_id}", "/api/papers/{paper_id}/similar", "/api/facets", "/api/export",
            "/api/topics/map", "/api/topics/trends"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200


def test_create_app_includes_extra_routers(served_data_dir):
    extra = APIRouter()

    @extra.get("/topic-map")
    def topic_map() -> dict:
        return {"ok": True}

    from fastapi.testclient import TestClient

    with TestClient(create_app(served_data_dir, routers=[extra], allowed_hosts=TEST_HOSTS)) as extended:
        assert extended.get("/topic-map").json() == {"ok": True}


def test_docs_pages_load_their_assets_from_this_server(client):
    docs = client.get("/docs").text
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', docs)
    assert assets and all(asset.startswith("/") for asset in assets), assets
    assert all(client.get(asset).status_code == 200 for asset in assets)


def test_search_says_what_the_query_was_read_as(client):
    body = client.get("/api/search", params={"q": "1706.03762", "mode": "keyword"}).json()
    assert body["total"] == 0 and body["intent"]["kind"] == "unknown_id"
    assert body["intent"]["unknown_id"] == {"kind": "arxiv", "value": "1706.03762",
                                            "command": "papersift fetch arxiv --query 'id:1706.03762'"}
    person = client.get("/api/search", params={"q": "Bengio Yoshua", "mode": "keyword"}).json()
    assert person["intent"]["person"]["name"] == "Yoshua Bengio"
    assert person["intent"]["person"]["url"].startswith("/author/")
    assert person["total"] == person["intent"]["person"]["papers"] > 0
    plain = client.get("/api/search", params={"q": "graph neural network", "mode": "keyword"}).json()
    assert plain["intent"] is None and plain["suggestion"] is None
