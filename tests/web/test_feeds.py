"""Atom feeds of a search, a venue and an author: parsed back with feedparser, every element
RFC 4287 requires checked, the same papers the API gives, ids that survive an index rebuild."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import feedparser
import lxml.html
import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from papersift.cli import app as cli_app
from papersift.server import create_app
from papersift.web.feeds import MAX_FEED_ENTRIES
from served_papers import HOSTILE_ID, MANY_AUTHORS_ID, TEST_HOSTS, XSS_TITLE

BASE = "http://testserver"


def parsed_feed(client, url: str) -> feedparser.FeedParserDict:
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def assert_rfc4287(feed: feedparser.FeedParserDict) -> None:
    """What RFC 4287 requires of a feed (4.1.1) and of each entry (4.1.2)."""
    assert feed.feed.id and feed.feed.title and feed.feed.updated_parsed
    assert feed.feed.get("authors"), "a feed needs an author unless every entry has one"
    assert any(link.rel == "self" for link in feed.feed.links)
    for entry in feed.entries:
        assert entry.id and entry.title and entry.updated_parsed
        alternates = [link for link in entry.links if link.rel == "alternate"]
        assert len(alternates) == 1 and alternates[0].href == entry.id
    assert len({entry.id for entry in feed.entries}) == len(feed.entries)


def entry_paper_ids(feed) -> list[str]:
    prefix = f"{BASE}/paper/"
    assert all(entry.id.startswith(prefix) for entry in feed.entries)
    return [entry.id[len(prefix):] for entry in feed.entries]


def api_ids(client, **params) -> list[str]:
    body = client.get("/api/search?" + urlencode(params, doseq=True)).json()
    return [quote(hit["paper"]["id"], safe="") for hit in body["hits"]]


@pytest.mark.parametrize("params", [
    {"q": "transformer", "mode": "keyword"},
    {"q": "reinforcement learning", "venue": ["ICLR", "NeurIPS"], "year_from": 2020},
    {"q": "graph", "mode": "keyword", "sort": "relevance"},
    {"venue": ["COLT"]},
])
def test_a_search_feed_lists_what_the_api_gives_in_its_order(client, params):
    feed = parsed_feed(client, "/feeds/search?" + urlencode(params, doseq=True))
    assert_rfc4287(feed)
    expected = api_ids(client, **{"sort": "newest", **params, "size": 30})
    assert expected and entry_paper_ids(feed) == expected


def test_search_feeds_are_newest_first_unless_the_url_sorts(client):
    newest = parsed_feed(client, "/feeds/search?q=learning&mode=keyword&year_to=2019&size=50")
    years = [entry.updated_parsed.tm_year for entry in newest.entries]
    assert years == sorted(years, reverse=True) and len(set(years)) > 1
    oldest = parsed_feed(client, "/feeds/search?q=learning&mode=keyword&sort=oldest&size=50")
    years = [entry.updated_parsed.tm_year for entry in oldest.entries]
    assert years == sorted(years)


def test_entries_carry_authors_in_order_dates_from_the_year_and_the_abstract(client, served_data_dir):
    feed = parsed_feed(client, "/feeds/search?q=" + quote("Scaling transformers with many collaborators"))
    entry = next(entry for entry in feed.entries if entry.id == f"{BASE}/paper/{MANY_AUTHORS_ID}")
    assert [author.name for author in entry.authors] == [f"Author Number{index}" for index in range(1, 16)]
    assert entry.updated == "2023-01-01T00:00:00+00:00" and entry.published == entry.updated
    assert entry.summary.startswith("We study how transformers scale")


def test_hostile_text_comes_back_as_the_same_text(client):
    feed = parsed_feed(client, "/feeds/search?" + urlencode({"q": "onerror", "mode": "keyword"}))
    entry = next(entry for entry in feed.entries if entry.id == f"{BASE}/paper/{HOSTILE_ID}")
    assert entry.title == XSS_TITLE
    assert [author.name for author in entry.authors] == ["Mallory <b>Evil</b>", "Eve \"quote\" O'Hare"]


def test_feed_size_is_capped(client):
    assert len(parsed_feed(client, f"/feeds/search?q=learning&size={MAX_FEED_ENTRIES}").entries) == MAX_FEED_ENTRIES
    response = client.get(f"/feeds/search?q=learning&size={MAX_FEED_ENTRIES + 1}")
    assert response.status_code == 422


def test_a_venue_feed_lists_the_venues_papers_newest_first(client):
    feed = parsed_feed(client, "/feeds/venue/colt")  # venue names match without case, like the page
    assert_rfc4287(feed)
    assert feed.feed.title.startswith("COLT")
    assert entry_paper_ids(feed) == api_ids(client, venue="COLT", sort="newest", size=30)
    years = [entry.updated_parsed.tm_year for entry in feed.entries]
    assert years == sorted(years, reverse=True)


def test_a_venue_year_feed_holds_only_that_year(client):
    feed = parsed_feed(client, "/feeds/venue/ICLR/2024?size=50")
    assert_rfc4287(feed)
    assert len(feed.entries) == 50
    assert {entry.updated_parsed.tm_year for entry in feed.entries} == {2024}
    assert all(category.term == "ICLR 2024" for entry in feed.entries for category in entry.tags[:1])


@pytest.mark.parametrize("url", ["/feeds/venue/NoSuchVenue", "/feeds/venue/ICLR/1950", "/feeds/author/Nobody%20Atall"])
def test_unknown_venues_and_authors_are_404(client, url):
    assert client.get(url).status_code == 404


def test_an_author_feed_lists_the_author_pages_papers(client):
    profile = client.get("/api/authors/" + quote("Yoshua Bengio")).json()
    feed = parsed_feed(client, "/feeds/author/" + quote("Yoshua Bengio"))
    assert_rfc4287(feed)
    assert entry_paper_ids(feed) == [quote(item["id"], safe="") for item in profile["papers"][:30]]
    assert all("Yoshua Bengio" in [author.name for author in entry.authors] for entry in feed.entries)


@pytest.mark.parametrize(("page_url", "feed_url"), [
    ("/?q=transformer&mode=keyword&page=2&lang=en", "/feeds/search?q=transformer&mode=keyword&lang=en"),
    ("/venue/ICLR/2024?lang=en", "/feeds/venue/ICLR/2024?lang=en"),
    ("/author/" + quote("Yoshua Bengio") + "?lang=zh", "/feeds/author/Yoshua%20Bengio?lang=zh"),
])
def test_pages_link_their_feed_and_the_link_parses(client, page_url, feed_url):
    html = lxml.html.fromstring(client.get(page_url).text)
    links = html.xpath('/html/head/link[@rel="alternate"][@type="application/atom+xml"]/@href')
    assert links == [feed_url]
    assert_rfc4287(parsed_feed(client, links[0]))


def test_pages_without_a_feed_and_error_pages_link_none(client):
    for url in ("/topics", f"/paper/{HOSTILE_ID}", "/venue/NoSuchVenue"):
        html = lxml.html.fromstring(client.get(url, headers={"Accept": "text/html"}).text)
        assert html.xpath('//link[@type="application/atom+xml"]') == [], url


def test_feed_ids_and_dates_are_the_same_after_an_index_rebuild(sample_records, tmp_path):
    """Ingested and indexed by the CLI (so the store records its ingest run), then rebuilt."""
    records = tmp_path / "papers.jsonl"
    records.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[::5]))
    data_dir = tmp_path / "data"
    runner = CliRunner()
    for command in (["ingest", str(records)], ["index"]):
        result = runner.invoke(cli_app, [*command, "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.output
    urls = ["/feeds/search?q=learning&mode=keyword", "/feeds/venue/ICLR", "/feeds/search?sort=oldest",
            "/feeds/author/" + quote(sample_records[0]["authors"][0])]

    def snapshot() -> list[list[tuple[str, str]]]:
        with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
            feeds = [parsed_feed(client, url) for url in urls]
        return [[(feed.feed.id, feed.feed.updated)] + [(entry.id, entry.updated) for entry in feed.entries]
                for feed in feeds]

    before = snapshot()
    result = runner.invoke(cli_app, ["index", "--rebuild", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert snapshot() == before
    assert [len(feed) - 1 for feed in before[:3]] == [30, 30, 30] and len(before[3]) > 1
    # the feed's updated is when the ingest run finished, later than any paper's year
    assert all(feed[0][1] > max(updated for _, updated in feed[1:]) for feed in before)
