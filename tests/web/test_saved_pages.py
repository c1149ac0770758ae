"""The saved-search pages and their forms: save from the search page (no JavaScript: a plain
POST with the write token and the CSRF token), see papers that arrived later marked new,
?new=1 for only them, "mark all as seen", rename, delete; forms without a valid CSRF token or
write token are refused, a read-only server shows no forms, and a GET records nothing."""

from __future__ import annotations

from urllib.parse import urlencode

import lxml.html
import pytest

from papersift.store import Store
from served_papers import writable_client
from write_checks import synthetic_records

TOKEN = "saved-pages-token-24-chars"
HOSTILE_NAME = "<b>zebra</b> & fish"


@pytest.fixture()
def served(sample_records, tmp_path):
    with writable_client(sample_records[:60], tmp_path / "data", TOKEN, follow_redirects=False) as (client, data_dir):
        yield client, data_dir


def _select(tree, selector: str) -> list:
    """`tag.class` as XPath (no cssselect dependency)."""
    tag, _, name = selector.partition(".")
    return tree.xpath(f'.//{tag}[contains(concat(" ", normalize-space(@class), " "), " {name} ")]')


def _form(html: str, selector: str) -> tuple[str, list[tuple[str, str]]]:
    forms = _select(lxml.html.fromstring(html), selector)
    assert len(forms) == 1, f"expected one {selector}"
    form = forms[0]
    return form.get("action"), [(field.get("name"), field.get("value") or "") for field in form.xpath(".//input")
                                if field.get("name") != "token"]


def _submit(client, action, fields, token=TOKEN, **overrides):
    values = [(name, overrides.pop(name, value)) for name, value in fields] + list(overrides.items())
    return client.post(action, content=urlencode([*values, ("token", token)]),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})


def _marks(data_dir):
    return [tuple(row) for row in Store(data_dir, readonly=True).read("SELECT * FROM watch_marks ORDER BY watch, channel")]


def test_save_from_the_page_then_new_papers_are_marked(served):
    client, data_dir = served
    page = client.get("/", params={"q": "zebrafish", "mode": "keyword", "sort": "newest", "lang": "en"})
    action, fields = _form(page.text, "form.save-search")
    assert action == "/saved" and ("mode", "keyword") in fields and ("sort", "newest") in fields
    saved = _submit(client, action, fields, name=HOSTILE_NAME)
    assert saved.status_code == 303 and saved.headers["location"] == "/saved/1?lang=en"

    arriving = synthetic_records("zebra", 3)
    for record in arriving:
        record["title"] = f"Zebrafish models {record['id']}"
    assert client.post("/api/papers", json=arriving, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    marks = _marks(data_dir)
    html = client.get("/saved/1", params={"lang": "en"}).text
    assert _marks(data_dir) == marks  # showing the page records nothing
    assert "<b>zebra</b>" not in html and "&lt;b&gt;zebra&lt;/b&gt; &amp; fish" in html
    tree = lxml.html.fromstring(html)
    assert sorted(item.xpath(".//a")[0].text for item in _select(tree, "li.is-new")) == sorted(
        record["title"] for record in arriving)
    only_new = lxml.html.fromstring(client.get("/saved/1", params={"new": "1", "lang": "en"}).text)
    assert len(_select(only_new, "li.saved-paper")) == 3

    action, fields = _form(html, "form.seen-form")
    assert _submit(client, action, fields).status_code == 303
    after = lxml.html.fromstring(client.get("/saved/1", params={"lang": "en"}).text)
    assert _select(after, "li.is-new") == [] and _select(after, "li.saved-paper")


def test_rename_and_delete_from_the_page(served):
    client, _ = served
    _, fields = _form(client.get("/", params={"q": "graph", "lang": "en"}).text, "form.save-search")
    assert _submit(client, "/saved", fields, name="graphs").status_code == 303
    html = client.get("/saved/1", params={"lang": "en"}).text
    action, fields = _form(html, "form.rename-form")
    assert _submit(client, action, fields, name="GNNs").status_code == 303
    assert "GNNs" in client.get("/saved", params={"lang": "en"}).text
    action, fields = _form(html, "form.delete-form")
    assert _submit(client, action, fields).headers["location"] == "/saved?lang=en"
    assert client.get("/saved/1").status_code == 404


def test_forms_without_the_csrf_or_write_token_are_refused(served):
    client, data_dir = served
    _, fields = _form(client.get("/", params={"q": "graph", "lang": "en"}).text, "form.save-search")
    assert _submit(client, "/saved", fields, token="wrong-token-wrong-token", name="x").status_code == 401
    assert _submit(client, "/saved", [item for item in fields if item[0] != "csrf"], name="x").status_code == 403
    assert _submit(client, "/saved", fields, csrf="forged.token.value", name="x").status_code == 403
    assert Store(data_dir, readonly=True).read("SELECT COUNT(*) FROM saved_searches")[0][0] == 0


def test_a_read_only_server_shows_no_forms_and_refuses_them(client):
    html = client.get("/", params={"q": "graph", "lang": "en"}).text
    assert "save-search" not in html
    assert _submit(client, "/saved", [("name", "x"), ("csrf", "x")]).status_code == 403


def test_a_venue_and_an_author_remember_what_was_seen(served):
    client, data_dir = served
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert client.post("/api/papers", json=synthetic_records("first", 2), headers=auth).status_code == 200
    venue_html = client.get("/venue/COLM", params={"lang": "en"}).text
    assert "Not followed yet" in venue_html
    marks = _marks(data_dir)
    action, fields = _form(venue_html, "form.seen-form")
    assert _marks(data_dir) == marks  # the page itself recorded nothing
    assert action == "/seen" and ("kind", "venue") in fields and ("back", "/venue/COLM?lang=en") in fields
    assert _submit(client, action, fields).headers["location"] == "/venue/COLM?lang=en"
    author_html = client.get("/author/Author first", params={"lang": "en"}).text
    action, fields = _form(author_html, "form.seen-form")
    assert _submit(client, action, fields).status_code == 303

    later = synthetic_records("first", 4)[2:]  # the same author, two more COLM papers
    assert client.post("/api/papers", json=later, headers=auth).status_code == 200
    tree = lxml.html.fromstring(client.get("/venue/COLM", params={"lang": "en"}).text)
    assert sorted(item.xpath(".//a")[0].text for item in _select(tree, "li.is-new")) == sorted(
        record["title"] for record in later)
    only_new = client.get("/venue/COLM", params={"lang": "en", "new": "1"}).text
    assert "venue-years" not in only_new and only_new.count('class="is-new"') == 2
    author = lxml.html.fromstring(client.get("/author/Author first", params={"lang": "en", "new": "1"}).text)
    listed = author.xpath('//ul[@class="paper-list"]/li')
    assert len(listed) == 2 and all(item.get("class") == "is-new" for item in listed)
    bad = _submit(client, "/seen", [("csrf", fields[0][1]), ("kind", "venue"), ("key", "COLM"), ("back", "//evil.example")])
    assert bad.status_code == 303 and bad.headers["location"] == "/"  # never an open redirect


def test_a_search_saved_on_the_page_shows_its_private_feed_link_which_parses(served):
    """Issue 28 item 4: the private Atom link appeared only after a CLI or API call."""
    import feedparser

    client, _ = served
    _, fields = _form(client.get("/", params={"q": "graph", "lang": "en"}).text, "form.save-search")
    saved = _submit(client, "/saved", fields, name="graphs")
    assert saved.status_code == 303
    tree = lxml.html.fromstring(client.get(saved.headers["location"]).text)
    links = [link.get("href") for link in _select(tree, "a.feed-link")]
    assert len(links) == 1 and links[0].startswith("/feeds/private/") and links[0].endswith("/saved/1")
    feed = feedparser.parse(client.get(links[0]).content)
    assert not feed.bozo and feed.entries and "graphs" in feed.feed.title


def test_a_search_saved_elsewhere_gets_its_feed_link_from_a_button(served):
    client, _ = served
    auth = {"Authorization": f"Bearer {TOKEN}"}
    made = client.post("/api/saved-searches", json={"name": "zebra", "search": {"q": "zebrafish"}}, headers=auth)
    assert made.status_code in (200, 201), made.text
    html = client.get("/saved/1", params={"lang": "zh"}).text
    assert "a class=\"feed-link\"" not in html and "生成私人订阅链接" in html
    action, fields = _form(html, "form.feed-form")
    assert _submit(client, action, fields).status_code == 303
    assert len(_select(lxml.html.fromstring(client.get("/saved/1").text), "a.feed-link")) == 1
    assert _submit(client, "/saved/7/feed", fields).status_code == 404
