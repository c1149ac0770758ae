"""Paper data as the reader should see it (issue 28 item 5): PDF-extraction debris cleaned on
result and paper pages, "Back to search" returning to the search the paper was found in, and a
venue-year whose source lists no statuses (or one for every paper) saying so."""

from __future__ import annotations

from urllib.parse import quote

import lxml.html
from fastapi.testclient import TestClient

from papersift.server import create_app
from served_papers import TEST_HOSTS, build_served_data_dir

DEBRIS_ID = "TEST-2023-debris"


def _records(sample_records) -> list[dict]:
    # Many papers use "bidirected": the keyword index knows it as a word.
    users = [{"id": f"TEST-2022-graph-{number}", "title": f"Bidirected graph study {number}", "venue": "UAI", "year": 2022,
              "authors": ["G Raph"], "abstract": f"Bidirected graphs and their causal semantics, study number {number}."}
             for number in range(25)]
    debris = {"id": DEBRIS_ID, "title": "Zebra debris paper", "venue": "UAI", "year": 2023, "authors": ["D Ebris"],
              "abstract": "We learn(cid:173) ing structure on bidi- rected graphs with pre- and post-training zebra."}
    orals = [{"id": f"TEST-2019-oral-{number}", "title": f"Oral {number}", "venue": "COLM", "year": 2019,
              "authors": ["O Ral"], "status": "Oral", "abstract": "Every paper of this year is listed as an oral talk."}
             for number in range(3)]
    return [*sample_records[:30], *users, debris, *orals]


def test_debris_back_to_search_and_venue_statuses(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", _records(sample_records))
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        results = client.get("/", params={"q": "zebra debris", "mode": "keyword", "lang": "en"}).text
        tree = lxml.html.fromstring(results)
        abstract = tree.xpath('//article[contains(@class, "hit")][1]//p[@class="abstract"]')[0].text_content()
        assert "learning structure on bidirected graphs with pre- and post-training" in abstract
        link = tree.xpath('//article[contains(@class, "hit")][1]//a[@class="hit-link"]')[0].get("href")
        assert link.startswith(f"/paper/{quote(DEBRIS_ID, safe='')}?")

        paper = lxml.html.fromstring(client.get(link).text)
        assert "learning structure on bidirected graphs" in paper.xpath('//p[contains(@class, "abstract")]')[0].text_content()
        assert paper.xpath('//a[@class="back-to-search"]')[0].get("href") == "/?q=zebra+debris&mode=keyword&lang=en"
        plain = lxml.html.fromstring(client.get(f"/paper/{DEBRIS_ID}", params={"lang": "en", "back": "https://evil.example/"}).text)
        assert plain.xpath('//a[@class="back-to-search"]')[0].get("href") == "/?lang=en"

        venue = lxml.html.fromstring(client.get("/venue/UAI", params={"lang": "en"}).text)
        cells = {row.xpath("td[1]")[0].text_content(): row.xpath('td[@class="statuses"]')[0].text_content()
                 for row in venue.xpath('//table[@class="venue-years"]//tr[td]')}
        assert cells["2023"] == "the source lists no statuses" and "unknown" not in "".join(cells.values())
        colm = lxml.html.fromstring(client.get("/venue/COLM", params={"lang": "zh"}).text)
        assert colm.xpath('//td[@class="statuses"]')[0].text_content() == "来源把每篇论文都列为 Oral"
