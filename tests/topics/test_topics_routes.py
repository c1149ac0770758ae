import pytest
from fastapi.testclient import TestClient

from papersift.server import create_app
from papersift.store import Store
from papersift.topics.classifier import WORDS_ONLY
from papersift.topics.plots import store_topic_trends
from papersift.topics.predict import predict_all
from papersift.topics.projection import map_points
from served_papers import TEST_HOSTS


@pytest.fixture(scope="module")
def client(topics_data_dir):
    predict_all(topics_data_dir, WORDS_ONLY)
    map_points(topics_data_dir, "pca")  # what `papersift topics map` stores; the server only reads it
    store_topic_trends(topics_data_dir)
    with TestClient(create_app(topics_data_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as test_client:
        yield test_client


def test_map_points_cover_every_paper(client, topics_data_dir):
    response = client.get("/api/topics/map")
    assert response.status_code == 200
    body = response.json()
    store = Store(topics_data_dir, readonly=True)
    total = store.count()
    store.close()
    assert body["count"] == total
    for key in ("ids", "titles", "x", "y", "area", "predicted"):
        assert len(body[key]) == total
    assert len(body["colors"]) == len(body["areas"]) and "Unassigned" not in body["areas"]
    assert all(0 <= value <= 1 for value in body["x"] + body["y"])
    assert 0 < sum(body["predicted"]) < total  # source labels and predictions both shown
    assert "matches" not in body


def test_map_marks_papers_of_a_search(client):
    body = client.get("/api/topics/map", params={"q": "reinforcement"}).json()
    assert body["matches"]
    titles = [body["titles"][i] for i in body["matches"]]
    assert sum("reinforcement" in title.lower() for title in titles) >= len(titles) // 4
    unmatched = client.get("/api/topics/map", params={"q": "zzzqqqxxy"}).json()
    assert unmatched["matches"] == []


def test_bad_map_requests(client):
    assert client.get("/api/topics/map", params={"method": "tsne"}).status_code == 422
    assert client.get("/api/topics/map", params={"q": "x" * 2000}).status_code == 422


def test_trends_json_and_svg(client):
    body = client.get("/api/topics/trends").json()
    total = sum(sum(years.values()) for years in body["by_year"].values())
    assert total == body["papers"] and body["predicted"] > 0
    svg = client.get("/topics/trends.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in svg.content


def test_page_and_header_link(client):
    page = client.get("/topics/map", params={"lang": "en", "q": "graph"})
    assert page.status_code == 200
    assert 'id="topic-map"' in page.text and 'data-query="graph"' in page.text
    assert 'href="/topics/map?lang=en"' in page.text
    assert '<a href="/topics/map?lang=en">Clear</a>' in page.text  # the labels are text, never dict methods
    assert "built-in method" not in page.text
    assert "主题地图" in client.get("/topics/map", params={"lang": "zh"}).text
