"""Issue 28 item 8: the topic browser and the area facet say which papers carry their source's
topic and which a predicted one. Before, the topic browser listed ~2,000 of 44,693 papers and the
area facet narrowed a search to ICLR 2024 without a word; nothing said where topics came from."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from papersift.index import lexical
from papersift.index.predictions import PredictionStore, StoredPrediction
from papersift.record import paper_from_dict
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

LABELLED, UNLABELLED, PREDICTED = 30, 50, 20


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.fixture()
def topic_dir(tmp_path, labeled_records, sample_records):
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    unlabelled = [record for record in sample_records if not record["area"]][:UNLABELLED]
    store.upsert([paper_from_dict(record) for record in [*labeled_records[:LABELLED], *unlabelled]])
    store.close()
    lexical.build(data_dir)
    return data_dir, [record["id"] for record in unlabelled]


def _predict(data_dir, paper_ids, area="Deep Learning", subarea="Attention Mechanisms"):
    rows = [StoredPrediction(paper_id, area, subarea, 0.5, 0.6, (), "test-model") for paper_id in paper_ids]
    with PredictionStore(data_dir) as predictions:
        predictions.write(rows, "test-model", last_seq=10_000, replace_all=True)
    lexical.update(data_dir)  # as `topics predict` does: the facets count the predictions


def test_the_topic_browser_and_the_area_facet_say_where_topics_come_from(topic_dir, labeled_records):
    data_dir, unlabelled_ids = topic_dir
    area_counts: dict[str, int] = {}
    for record in labeled_records[:LABELLED]:
        area_counts[record["area"]] = area_counts.get(record["area"], 0) + 1
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        # no predictions yet: the pages say the counts cover only the labelled papers
        topics_en = _text(client.get("/topics?lang=en").text)
        assert (f"{LABELLED} papers carry the topic their source lists (ICLR 2024); 0 have a topic predicted by a "
                f"classifier (marked “predicted”); {UNLABELLED} have none yet.") in topics_en
        assert "The other papers have no topic yet" in topics_en
        _, count = max(area_counts.items(), key=lambda item: item[1])
        assert f"{count} of them from the source lists" in topics_en
        topics_zh = _text(client.get("/topics?lang=zh").text)
        assert f"{LABELLED} 篇论文的主题来自其来源列表（ICLR 2024）；0 篇的主题由分类器预测" in topics_zh
        assert f"{UNLABELLED} 篇尚无主题" in topics_zh and "其余论文还没有主题" in topics_zh
        assert f"其中 {count} 篇来自来源列表" in topics_zh
        facet = client.get("/?q=&lang=en").text
        area_section = re.search(r'<section class="facet" data-facet="area">(.*?)</section>', facet, re.S)
        assert area_section is not None
        assert f"{LABELLED} papers carry the topic their source lists" in _text(area_section.group(1))
        assert "来源列表" in client.get("/?q=&lang=zh").text

        # predictions arrive (a new keyword-index generation): counted in the facet, said on the pages
        _predict(data_dir, unlabelled_ids[:PREDICTED])
        client.app.state.service.backend.refresh(force=True)
        topics_en = _text(client.get("/topics?lang=en").text)
        assert (f"{LABELLED} papers carry the topic their source lists (ICLR 2024); {PREDICTED} have a topic predicted"
                f" by a classifier (marked “predicted”); {UNLABELLED - PREDICTED} have none yet.") in topics_en
        facets = client.get("/api/facets?q=").json()["facets"]["area"]
        deep = next(value["count"] for value in facets if value["value"] == "Deep Learning")
        assert deep == area_counts.get("Deep Learning", 0) + PREDICTED  # predicted topics count in the facet

        # every paper with a topic: no "no topic yet" line
        _predict(data_dir, unlabelled_ids)
        client.app.state.service.backend.refresh(force=True)
        topics_en = _text(client.get("/topics?lang=en").text)
        assert f"{UNLABELLED} have a topic predicted" in topics_en and "0 have none yet" in topics_en
        assert "have no topic yet" not in topics_en
