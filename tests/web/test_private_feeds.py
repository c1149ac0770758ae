"""Private feeds: a saved search's Atom feed behind the user's feed token parses with
feedparser, lists the papers that arrived (newest first), keeps its id across a new token, is
linked from the saved-search page with <link rel="alternate">, and answers 404 once revoked."""

from __future__ import annotations

import feedparser
import lxml.html
import pytest

from served_papers import writable_client
from write_checks import synthetic_records

TOKEN = "private-feeds-token-24-chars"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def served(sample_records, tmp_path):
    with writable_client(sample_records[:60], tmp_path / "data", TOKEN) as (client, _data_dir):
        yield client


def test_a_saved_search_feed_lists_the_arrived_papers_until_revoked(served):
    client = served
    saved = client.post("/api/saved-searches", headers=AUTH, json={"name": "zebra", "search": {"q": "zebrafish",
                                                                                               "mode": "keyword"}}).json()
    arriving = synthetic_records("zebra", 2)
    for record in arriving:
        record["title"] = f"Zebrafish models {record['id']}"
    assert client.post("/api/papers", headers=AUTH, json=arriving).status_code == 200
    assert "application/atom+xml" not in client.get(f"/saved/{saved['id']}").text  # no token yet: no private link
    feed_token = client.post("/api/feed-token", headers=AUTH).json()["token"]

    head = lxml.html.fromstring(client.get(f"/saved/{saved['id']}", params={"lang": "en"}).text)
    links = head.xpath('//head/link[@rel="alternate"][@type="application/atom+xml"]/@href')
    assert links == [f"/feeds/private/{feed_token}/saved/{saved['id']}"]
    response = client.get(links[0])
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo and feed.feed.title.startswith("zebra")
    assert {entry.title for entry in feed.entries} == {record["title"] for record in arriving}
    assert all(entry.id.startswith("http://testserver/paper/") and entry.updated for entry in feed.entries)
    first_id = feed.feed.id
    assert feed_token not in first_id

    new_token = client.post("/api/feed-token", headers=AUTH).json()["token"]
    assert client.get(links[0]).status_code == 404  # the old token is revoked by the new one
    again = feedparser.parse(client.get(f"/feeds/private/{new_token}/saved/{saved['id']}").content)
    assert again.feed.id == first_id and len(again.entries) == 2
    assert client.delete("/api/feed-token", headers=AUTH).json() == {"revoked": True}
    assert client.get(f"/feeds/private/{new_token}/saved/{saved['id']}").status_code == 404
    assert client.get("/feeds/private/guessed-token/saved/1").status_code == 404


def tag_feed_links(client, tag: str, ids: list[str]) -> tuple[str, list[str]]:
    """Tag the papers, build the recommender's features, make a feed token: (the token, the
    Atom links of the tag's recommendation page)."""
    from papersift.library.features import build_features

    assert client.post("/api/library/tag", headers=AUTH, json={"tag": tag, "paper_ids": ids}).status_code == 200
    build_features(client.app.state.settings.data_dir)
    feed_token = client.post("/api/feed-token", headers=AUTH).json()["token"]
    page = lxml.html.fromstring(client.get("/library/recommend", params={"tag": tag, "lang": "en"}).text)
    return feed_token, page.xpath('//head/link[@rel="alternate"][@type="application/atom+xml"]/@href')


def test_a_tags_recommendations_feed_is_private_and_linked(served, sample_records, tmp_path):
    client = served
    ids = [record["id"] for record in sample_records[:3]]
    feed_token, links = tag_feed_links(client, "seed & co", ids)
    assert links == [f"/feeds/private/{feed_token}/tag/seed%20%26%20co"]
    feed = feedparser.parse(client.get(links[0]).content)
    assert not feed.bozo and len(feed.entries) == 20 and not {entry.id.rsplit("/", 1)[1] for entry in feed.entries} & set(ids)
    assert client.get(f"/feeds/private/not-{feed_token}/tag/seed%20%26%20co").status_code == 404


def test_a_tag_with_a_slash_has_its_private_feed_and_no_404_echoes_the_token(served, sample_records, caplog):
    """A tag holding '/' was routed as two path segments (404), and the 404 named the whole
    path, token included; the access log did too."""
    import logging

    client = served
    feed_token, links = tag_feed_links(client, "ml/vision", [record["id"] for record in sample_records[:3]])
    assert links == [f"/feeds/private/{feed_token}/tag/ml%2Fvision"]
    answer = client.get(links[0])
    assert answer.status_code == 200, answer.text[:300]
    feed = feedparser.parse(answer.content)
    assert not feed.bozo and feed.feed.title.startswith("ml/vision") and len(feed.entries) == 20

    with caplog.at_level(logging.INFO, logger="papersift.access"):
        for path in (f"/feeds/private/{feed_token}/nothing/here", f"/feeds/private/{feed_token}/saved/x/y",
                     f"/feeds/private/{feed_token}/saved/999"):
            for accept in ("application/json", "text/html"):
                missing = client.get(path, headers={"Accept": accept})
                assert missing.status_code in (404, 422), (path, missing.status_code)
                assert feed_token not in missing.text, (path, accept, missing.text[:500])
    assert caplog.records and not [record for record in caplog.records if feed_token in record.getMessage()]
