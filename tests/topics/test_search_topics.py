"""Predicted topics in search: hits, filters, facets, index updates, CLI, API and page.

A copy of the sample data dir with predictions made by the real topic code (words-only
model on the sample's labeled papers), checked against a reference computed from the
store and the prediction table: a paper's topic is its source label, else its prediction.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections import Counter
from dataclasses import replace

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from papersift.cli import app as cli_app
from papersift.config import MAX_PAGE_SIZE
from papersift.index import lexical
from papersift.index.predictions import PredictionStore
from papersift.search.service import SearchService
from papersift.search.types import Filters, SearchRequest
from papersift.server import create_app
from papersift.store import Store
from papersift.topics.classifier import WORDS_ONLY
from papersift.topics.predict import predict_all
from served_papers import TEST_HOSTS


def copy_without_predictions(source, target):
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("topics"))
    with sqlite3.connect(target / "papers.sqlite3") as conn:  # other tests may have predicted there
        conn.execute("DROP TABLE IF EXISTS predicted_topics")
        conn.execute("DROP TABLE IF EXISTS predicted_topics_meta")
    lexical.build(target)  # the index of the papers alone, as before any prediction
    return target


@pytest.fixture(scope="module")
def predicted_dir(topics_data_dir, tmp_path_factory):
    """Sample papers, predictions for the unlabeled ones, the keyword index brought up to them."""
    data_dir = copy_without_predictions(topics_data_dir, tmp_path_factory.mktemp("search_topics") / "data")
    predict_all(data_dir, WORDS_ONLY)
    lexical.update(data_dir)
    return data_dir


@pytest.fixture()
def writable_dir(predicted_dir, tmp_path):
    target = tmp_path / "data"
    shutil.copytree(predicted_dir, target)
    return target


def reference_topics(data_dir) -> dict[str, tuple[str | None, str | None, bool]]:
    """(area, subarea, predicted) of every paper: source label, else stored prediction."""
    store = Store(data_dir, readonly=True)
    papers = [paper for _, paper in store.iter_papers()]
    store.close()
    with PredictionStore(data_dir, readonly=True) as predictions:
        stored = {p.paper_id: p for p in predictions.all()}
    topics = {}
    for paper in papers:
        guess = stored.get(paper.id)
        if paper.area:
            topics[paper.id] = (paper.area, paper.subarea, False)
        elif guess is not None:
            topics[paper.id] = (guess.area, guess.subarea, True)
        else:
            topics[paper.id] = (None, None, False)
    return topics


NO_FILTERS = Filters()


def browse(service, query="", filters=NO_FILTERS, size=MAX_PAGE_SIZE):
    return service.search(SearchRequest(query=query, mode="keyword", filters=filters, size=size))


def facet_counts(response, name) -> dict[str, int]:
    return {value.value: value.count for value in response.facets[name]}


def test_hits_show_the_prediction_flagged_and_source_labels_unflagged(predicted_dir):
    topics = reference_topics(predicted_dir)
    with PredictionStore(predicted_dir, readonly=True) as predictions:
        stored = {p.paper_id: p for p in predictions.all()}
    service = SearchService(predicted_dir)
    hits = browse(service).hits + browse(service, 'area:"Applications"').hits
    assert any(hit.topic_predicted for hit in hits) and any(not hit.topic_predicted for hit in hits)
    for hit in hits:
        area, subarea, predicted = topics[hit.paper.id]
        assert (hit.paper.area, hit.paper.subarea, hit.topic_predicted) == (area, subarea, predicted)
        expected_confidence = stored[hit.paper.id].confidence if predicted else None
        assert hit.topic_confidence == expected_confidence
    store = Store(predicted_dir, readonly=True)  # predictions never reach the source columns
    some_predicted = next(hit.paper.id for hit in hits if hit.topic_predicted)
    assert store.get(some_predicted).area is None
    store.close()


def test_area_and_subarea_filters_and_facets_count_predicted_papers(predicted_dir):
    topics = reference_topics(predicted_dir)
    by_area = Counter(area for area, _, _ in topics.values() if area)
    service = SearchService(predicted_dir)
    everything = browse(service, size=1)
    assert facet_counts(everything, "area") == by_area
    assert sum(1 for _, _, predicted in topics.values() if predicted) > sum(by_area.values()) / 2

    area = "Applications"  # both labeled and predicted papers have it in the sample
    kinds = Counter(predicted for paper_area, _, predicted in topics.values() if paper_area == area)
    assert kinds[True] and kinds[False]
    in_area = {paper_id for paper_id, (paper_area, _, _) in topics.items() if paper_area == area}
    by_query = browse(service, f'area:"{area}"')
    by_filter = browse(service, filters=Filters(areas=(area.lower(),)))
    assert by_query.total == by_filter.total == len(in_area) == kinds[True] + kinds[False]
    assert {hit.paper.id for hit in by_query.hits} <= in_area
    expected_subareas = Counter(subarea for paper_area, subarea, _ in topics.values() if paper_area == area and subarea)
    assert facet_counts(by_query, "subarea") == expected_subareas

    subarea = Counter(s for _, s, predicted in topics.values() if predicted and s).most_common(1)[0][0]
    with_subarea = Counter(predicted for _, s, predicted in topics.values() if s == subarea)
    assert browse(service, f'subarea:"{subarea}"', size=1).total == with_subarea[True] + with_subarea[False]


def test_index_update_follows_changed_and_dropped_predictions_and_source_labels_win(writable_dir):
    service = SearchService(writable_dir)
    topics = reference_topics(writable_dir)
    predicted_ids = sorted(pid for pid, (_, _, predicted) in topics.items() if predicted)
    labeled_id = next(pid for pid, (area, _, predicted) in topics.items() if area and not predicted)
    new_area = "Zz Test Area"
    with PredictionStore(writable_dir) as predictions:
        before_stamp = predictions.stamp()
        moved = [replace(p, area=new_area, subarea="Zz Sub") for p in predictions.get_many(predicted_ids[:3]).values()]
        # A prediction for a labeled paper (e.g. labeled after the last predict run) must not win.
        labeled_guess = replace(moved[0], paper_id=labeled_id)
        predictions.write([*moved, labeled_guess], predictions.model_version(), predictions.last_seq(),
                          replace_all=False, drop_ids=[predicted_ids[3]])
        assert predictions.stamp() != before_stamp
    result = lexical.update(writable_dir)
    assert result.added == 4 and not result.full  # three moved, one dropped; the labeled paper stays
    service.backend.refresh(force=True)
    moved_hits = browse(service, f'area:"{new_area}"').hits
    assert sorted(hit.paper.id for hit in moved_hits) == predicted_ids[:3]
    assert all(hit.topic_predicted and hit.paper.subarea == "Zz Sub" for hit in moved_hits)
    dropped_area = topics[predicted_ids[3]][0]
    dropped_hits = browse(service, f'area:"{dropped_area}"', size=MAX_PAGE_SIZE)
    assert predicted_ids[3] not in {hit.paper.id for hit in dropped_hits.hits}
    assert facet_counts(browse(service, size=1), "area")[new_area] == 3
    assert lexical.update(writable_dir).added == 0  # caught up


def test_source_label_wins_over_a_prediction_for_the_same_paper(writable_dir):
    topics = reference_topics(writable_dir)
    labeled_id, (area, subarea, _) = next((pid, t) for pid, t in topics.items() if t[0] and not t[2])
    with PredictionStore(writable_dir) as predictions:
        template = predictions.all()[0]
        predictions.write([replace(template, paper_id=labeled_id, area="Zz Other", subarea=None)],
                          predictions.model_version(), predictions.last_seq(), replace_all=False)
    assert lexical.update(writable_dir).added == 0  # its indexed topic is still its own
    service = SearchService(writable_dir)
    assert browse(service, 'area:"Zz Other"').total == 0
    title_words = " ".join(re.findall(r"\w+", Store(writable_dir, readonly=True).get(labeled_id).title)[:6])
    hit = next(hit for hit in browse(service, title_words).hits if hit.paper.id == labeled_id)
    assert (hit.paper.area, hit.paper.subarea, hit.topic_predicted) == (area, subarea, False)


def test_predict_command_reindexes_new_papers_with_their_topic(writable_dir):
    store = Store(writable_dir)
    unlabeled = next(paper for _, paper in store.iter_papers() if not paper.area)
    newcomer = replace(unlabeled, id="zz-newcomer", title=f"Zzyzx {unlabeled.title}")
    store.upsert([newcomer])
    store.close()
    lexical.update(writable_dir)  # indexed before any prediction for it exists
    service = SearchService(writable_dir)
    assert browse(service, "zzyzx").hits[0].paper.area is None

    result = CliRunner().invoke(cli_app, ["topics", "predict", "--words-only", "--json",
                                          "--data-dir", str(writable_dir)])
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert summary["mode"] == "incremental" and summary["predicted"] == 1 and summary["reindexed"] == 1
    service.backend.refresh(force=True)
    hit = browse(service, "zzyzx").hits[0]
    assert hit.topic_predicted and hit.paper.area
    assert hit.paper.id in {h.paper.id for h in browse(service, f'area:"{hit.paper.area}" zzyzx').hits}


def test_search_command_marks_predicted_topics(predicted_dir):
    result = CliRunner().invoke(cli_app, ["search", 'area:"Applications"', "--size", "50", "--mode", "keyword",
                                          "--data-dir", str(predicted_dir)])
    assert result.exit_code == 0, result.output
    topic_lines = [line for line in result.stdout.splitlines() if line.startswith("Applications")]
    assert any(line.endswith("(predicted)") for line in topic_lines)
    assert any(not line.endswith("(predicted)") for line in topic_lines)


def test_api_and_page_show_predicted_topics(predicted_dir):
    with TestClient(create_app(predicted_dir, allowed_hosts=TEST_HOSTS), raise_server_exceptions=False) as client:
        body = client.get("/api/search", params={"q": 'area:"Applications"', "mode": "keyword", "size": 50}).json()
        predicted = [hit for hit in body["hits"] if hit["topic_predicted"]]
        labeled = [hit for hit in body["hits"] if not hit["topic_predicted"]]
        assert predicted and labeled
        assert all(0 < hit["topic_confidence"] <= 1 and hit["paper"]["topic"].startswith("Applications")
                   for hit in predicted)
        assert all(hit["topic_confidence"] is None for hit in labeled)
        facets = {item["value"]: item["count"] for item in
                  client.get("/api/search", params={"q": "", "mode": "keyword"}).json()["facets"]["area"]}
        assert facets["Applications"] == body["total"]

        html = client.get("/", params={"q": 'area:"Applications"', "mode": "keyword", "size": 50, "lang": "en"},
                          headers={"Accept": "text/html"}).text
    topics = re.findall(r'<div class="topic"[^>]*>(.*?)</div>', html, re.DOTALL)
    badged = [topic for topic in topics if 'class="badge predicted"' in topic]
    assert len(badged) == len(predicted) and len(topics) == len(body["hits"])
    assert all(re.search(r'title="Topic predicted by the classifier \(\d+%\)">predicted</span>', t) for t in badged)


def test_predictions_of_another_model_rebuild_the_index(writable_dir):
    with PredictionStore(writable_dir) as predictions:
        rows = [replace(p, area="Zz New Model", model_version="other") for p in predictions.all()]
        predictions.write(rows, "other", predictions.last_seq(), replace_all=True)
    documents = Store(writable_dir, readonly=True).count()
    result = lexical.update(writable_dir)
    assert result.full and result.documents == documents
    assert browse(SearchService(writable_dir), 'area:"Zz New Model"', size=1).total == len(rows)
