"""/library and /library/recommend: the library as a page, every value escaped, and a tag's
recommendations with their explanations (or the reason there are none)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from papersift.library.entries import Library
from papersift.library.features import build_features
from papersift.server import create_app
from served_papers import TEST_HOSTS, build_served_data_dir

HOSTILE_NOTE = "<script>alert('note')</script> & more"
HOSTILE_TAG = "<b>bold</b> tag"


@pytest.fixture()
def served(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:60])
    library = Library.open(data_dir)
    ids = [record["id"] for record in sample_records[:6]]
    library.tag(ids[:4], HOSTILE_TAG)
    library.set_note(ids[0], HOSTILE_NOTE)
    library.rate(ids[4:5], -1)
    library.set_reading(ids[1:2], "to-read")
    library.store.close()
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        yield client, data_dir, ids


def test_the_library_page_lists_everything_escaped(served, sample_records):
    client, _, _ = served
    page = client.get("/library", params={"lang": "en"})
    assert page.status_code == 200
    html = page.text
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#39;note&#39;)&lt;/script&gt; &amp; more" in html
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt; tag" in html
    assert sample_records[0]["title"] in html and "not interested" in html and "to read" in html
    assert "/api/library/export?format=ris" in html
    tagged = client.get("/library", params={"lang": "en", "tag": HOSTILE_TAG}).text
    assert sample_records[4]["title"] not in tagged and sample_records[3]["title"] in tagged


def test_the_recommend_page_explains_or_says_why_not(served):
    client, data_dir, _ = served
    missing = client.get("/library/recommend", params={"tag": HOSTILE_TAG, "lang": "en"})
    assert missing.status_code == 200 and "papersift library features" in missing.text
    build_features(data_dir)
    page = client.get("/library/recommend", params={"tag": HOSTILE_TAG, "lang": "en", "k": 5}).text
    # never shown before: all new
    assert page.count('<li class="recommendation hit-item') == 5 == page.count('class="recommendation hit-item is-new"')
    assert "like the 3 papers in tag &#39;&lt;b&gt;bold&lt;/b&gt; tag&#39;: " in page
