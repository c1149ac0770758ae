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
    assert missing.status_code == 200 and "has not prepared what recommendations learn from yet" in missing.text
    assert "papersift" not in missing.text.split("<main")[1]  # no command for the reader to type
    build_features(data_dir)
    page = client.get("/library/recommend", params={"tag": HOSTILE_TAG, "lang": "en", "k": 5}).text
    # never shown before: all new
    assert page.count('<li class="recommendation hit-item') == 5 == page.count('class="recommendation hit-item is-new"')
    assert page.count("in tag “&lt;b&gt;bold&lt;/b&gt; tag” (similarity ") == 5


def test_the_recommend_page_speaks_chinese_and_gives_each_paper_its_own_reason(served):
    """Issue 28 items 2 and 7: while quickstart's background chain prepares the features the zh
    page says so in Chinese (was: an English error naming a command); then each recommendation's
    reason is its own (its nearest tagged paper, the similarity), in Chinese."""
    import os

    import lxml.html
    import orjson

    from papersift.background import STATUS_FILE

    client, data_dir, _ = served
    stages = [{"name": "Chinese terms", "state": "done", "started_at": 1.0, "ended_at": 2.0},
              {"name": "library features", "state": "running", "started_at": 2.0, "ended_at": None}]
    (data_dir / STATUS_FILE).write_bytes(orjson.dumps({"pid": os.getpid(), "stages": stages}))
    waiting = client.get("/library/recommend", params={"tag": HOSTILE_TAG, "lang": "zh"}).text
    assert "推荐所需的数据正在后台准备（第 2/2 步：文献库特征）" in waiting
    build_features(data_dir)
    page = lxml.html.fromstring(client.get("/library/recommend", params={"tag": HOSTILE_TAG, "lang": "zh", "k": 8}).text)
    reasons = [node.text_content() for node in page.xpath('//li[contains(@class, "recommendation")]/p[@class="because"]')]
    assert len(reasons) == 8 and all(text.startswith(f"与标签“{HOSTILE_TAG}”中的《") for text in reasons)
    assert len(set(reasons)) == 8  # each its own, not one sentence repeated
