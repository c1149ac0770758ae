"""/api/saved-searches and /api/feed-token: changes and the token pass the write gate before
their body is read; a saved search lists its papers and flags the ones that arrived after it
was saved (or last marked seen), and POST /api/seen marks them."""

from __future__ import annotations

import pytest

from papersift.store import Store
from served_papers import writable_client
from write_checks import synthetic_records

TOKEN = "saved-search-token-24-chars"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def writable(sample_records, tmp_path):
    with writable_client(sample_records[:60], tmp_path / "data", TOKEN) as (client, data_dir):
        yield client, data_dir


@pytest.mark.parametrize("method, path", [("post", "/api/saved-searches"), ("patch", "/api/saved-searches/1"),
                                          ("delete", "/api/saved-searches/1"), ("post", "/api/seen"),
                                          ("get", "/api/feed-token"), ("post", "/api/feed-token"),
                                          ("delete", "/api/feed-token")])
def test_changes_and_the_token_need_the_write_token(writable, client, method, path):
    writable_client, _ = writable
    response = writable_client.request(method, path, content=b"not json", headers={"Authorization": "Bearer wrong-token-wrong"})
    assert response.status_code == 401  # not 422: the body was never parsed
    assert client.request(method, path, content=b"{}", headers=AUTH).status_code == 403  # the read-only app


def test_save_list_rename_delete(writable):
    client, _ = writable
    created = client.post("/api/saved-searches", headers=AUTH, json={
        "name": "graphs", "search": {"q": "graph", "mode": "keyword", "venue": ["ICLR"], "sort": "newest"}})
    assert created.status_code == 201, created.text
    assert created.json()["search"] == {"q": "graph", "mode": "keyword", "sort": "newest", "venue": ["ICLR"]}
    saved_id = created.json()["id"]
    again = client.post("/api/saved-searches", headers=AUTH, json={"name": "graphs", "search": {"q": "x"}})
    assert again.status_code == 422 and "already named" in again.json()["message"]
    bad = client.post("/api/saved-searches", headers=AUTH, json={"name": "x", "search": {"sort": "random"}})
    assert bad.status_code == 422
    assert client.patch(f"/api/saved-searches/{saved_id}", headers=AUTH, json={"name": "GNNs"}).json()["name"] == "GNNs"
    assert [item["name"] for item in client.get("/api/saved-searches").json()["saved_searches"]] == ["GNNs"]
    assert client.delete("/api/saved-searches/GNNs", headers=AUTH).status_code == 200
    assert client.get("/api/saved-searches/GNNs").status_code == 404


def test_papers_arriving_after_the_save_are_new_until_marked_seen(writable):
    client, data_dir = writable
    assert client.post("/api/saved-searches", headers=AUTH, json={
        "name": "zebra", "search": {"q": "zebrafish", "mode": "keyword", "sort": "newest"}}).status_code == 201
    before = client.get("/api/saved-searches/zebra").json()
    assert before["new"] == 0
    arriving = synthetic_records("zebra", 3)
    for record in arriving:
        record["title"] = f"Zebrafish models {record['id']}"
    assert client.post("/api/papers", headers=AUTH, json=arriving).status_code == 200
    listed = client.get("/api/saved-searches/zebra").json()
    assert listed["new"] == 3
    assert {paper["id"] for paper in listed["papers"] if paper["new"]} == {record["id"] for record in arriving}
    only_new = client.get("/api/saved-searches/zebra", params={"new": "true"}).json()["papers"]
    assert sorted(paper["id"] for paper in only_new) == sorted(record["id"] for record in arriving)
    marked = client.post("/api/seen", headers=AUTH, json={"watch": f"saved:{listed['id']}"}).json()
    assert marked["were_new"] == 3
    assert client.get("/api/saved-searches/zebra").json()["new"] == 0
    # An update gives a paper a new seq; it was shown, so it stays old.
    arriving[0]["abstract"] = "Updated abstract about zebrafish."
    assert client.post("/api/papers", headers=AUTH, json=arriving[:1]).status_code == 200
    assert Store(data_dir, readonly=True).get(arriving[0]["id"]).abstract.startswith("Updated")
    assert client.get("/api/saved-searches/zebra").json()["new"] == 0


def test_the_feed_token_is_created_read_and_revoked(writable):
    client, _ = writable
    assert client.get("/api/feed-token", headers=AUTH).json() == {"token": None}
    token = client.post("/api/feed-token", headers=AUTH).json()["token"]
    assert len(token) >= 32 and client.get("/api/feed-token", headers=AUTH).json() == {"token": token}
    assert client.delete("/api/feed-token", headers=AUTH).json() == {"revoked": True}
    assert client.get("/api/feed-token", headers=AUTH).json() == {"token": None}
