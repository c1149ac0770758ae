"""The co-author graph on author pages: drawn from the profile, every name escaped, each
co-author a link to their page, chords only between co-authors on the ring."""

from __future__ import annotations

import re
from urllib.parse import quote

from markupsafe import escape

from papersift.people.profiles import GRAPH_COAUTHORS, author_profile
from papersift.store import Store
from papersift.web.coauthor_graph import coauthor_svg


def busiest_author(data_dir) -> str:
    """The fixture author with the most distinct co-authors (a name; the store has no identities)."""
    store = Store(data_dir, readonly=True)
    try:
        return store.read("SELECT a.name FROM paper_authors a JOIN paper_authors b ON a.paper_id = b.paper_id"
                          " AND a.position != b.position GROUP BY a.name_key ORDER BY COUNT(DISTINCT b.name_key) DESC,"
                          " a.name_key LIMIT 1")[0][0]
    finally:
        store.close()


def test_graph_links_each_ring_coauthor_and_escapes_names(served_data_dir):
    store = Store(served_data_dir, readonly=True)
    profile = author_profile(store, busiest_author(served_data_dir))
    store.close()
    profile["coauthors"][0]["name"] = "<script>x</script> & Co"
    svg = str(coauthor_svg(profile, lambda author_id: f"/author/{quote(author_id, safe='')}", "Graph <1>", "papers"))
    ring = profile["coauthors"][:GRAPH_COAUTHORS]
    assert len(ring) >= 3 and svg.count('<a class="coauthor"') == len(ring)
    assert "<script>" not in svg and str(escape("<script>x</script> & Co")) in svg and "Graph &lt;1&gt;" in svg
    assert all(f'href="/author/{quote(person["id"], safe="")}"' in svg for person in ring)
    ring_ids = {person["id"] for person in ring}
    assert all({link["a"], link["b"]} <= ring_ids for link in profile["coauthor_links"])
    assert svg.count('class="chord"') == len(profile["coauthor_links"])


def test_author_page_draws_the_graph_and_api_lists_its_links(client, served_data_dir):
    name = busiest_author(served_data_dir)
    html = client.get(f"/author/{quote(name, safe='')}?lang=zh").text
    assert '<figure class="graph-figure"><svg class="coauthor-graph"' in html and "合作者关系图" in html
    body = client.get(f"/api/authors/{quote(name, safe='')}").json()
    shown = re.findall(r'<a class="coauthor" href="([^"]+)"', html)
    assert len(shown) == min(GRAPH_COAUTHORS, len(body["coauthors"]))
    assert all(link["papers"] >= 1 for link in body["coauthor_links"])


def test_an_author_without_coauthors_gets_no_graph():
    profile = {"name": "Solo", "coauthors": [], "coauthor_links": []}
    assert str(coauthor_svg(profile, str, "Graph", "papers")) == ""
