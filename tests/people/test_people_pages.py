"""The author and venue pages: the API's figures as HTML, every data value escaped, author
names on results and paper pages linking to them."""

from __future__ import annotations

import re
from urllib.parse import quote

from markupsafe import escape


def test_venue_year_page_shows_acceptance_and_links_authors(people_client):
    response = people_client.get("/venue/ICLR/2018?lang=en")
    assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    assert "427/995 = 42.9%" in response.text
    assert re.search(r'<a href="/author/[^"]+\?lang=en">', response.text)


def test_author_page_lists_papers_with_dated_citations(people_client):
    body = people_client.get("/api/venues/COLM").json()
    author = body["top_authors"][0]
    path = quote(author["id"], safe="")
    profile = people_client.get(f"/api/authors/{path}").json()
    html = people_client.get(f"/author/{path}?lang=zh").text
    assert f"{profile['paper_count']} 篇论文" in html and "截至 2026-02-23" in html
    assert all(str(escape(paper["title"])) in html for paper in profile["papers"])
    assert people_client.get("/author/Nobody%20Atall?lang=en").status_code == 404


def test_result_and_paper_page_names_link_to_author_pages(people_client):
    html = people_client.get("/?q=adversarial&mode=keyword&lang=en").text
    assert re.search(r'<span class="shown"><a href="/author/[^"]+">', html)
    paper_id = people_client.get("/api/venues/COLM/2024").json()["most_cited"][0]["id"]
    page = people_client.get(f"/paper/{quote(paper_id, safe='')}?lang=en").text
    assert 'class="author-affiliations"' in page and 'href="/author/~' in page and "cited " in page


def test_hostile_author_names_are_escaped_on_their_page(client):
    html = client.get("/author/" + quote("Mallory <b>Evil</b>", safe="") + "?lang=en").text
    assert "Mallory &lt;b&gt;Evil&lt;/b&gt;" in html and "<b>Evil" not in html
    results = client.get("/?q=author%3AMallory&mode=keyword&lang=en").text
    assert "Mallory%20%3Cb%3EEvil%3C%2Fb%3E" in results and "<b>Evil" not in results


def test_an_author_name_with_a_slash_has_its_profile_and_page(client):
    """A name is a path segment of its own: "</b>" in it (quoted as %2F) must not split the route."""
    name = quote("Mallory <b>Evil</b>", safe="")
    profile = client.get(f"/api/authors/{name}")
    assert profile.status_code == 200, profile.text
    assert profile.json()["name"] == "Mallory <b>Evil</b>" and profile.json()["paper_count"] >= 1
    assert client.get(f"/author/{name}?lang=en").status_code == 200


def test_a_name_without_identities_warns_it_may_be_several_people(client):
    """Issue 28 item 8: /author/Yang Liu listed 131 papers of several people with no word of it."""
    html = client.get("/author/" + quote("Mallory <b>Evil</b>", safe="") + "?lang=zh").text
    assert 'class="notice namesake-warning"' in html and "可能是几位同名的作者" in html
