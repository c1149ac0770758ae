"""/healthz and the warm-up (issue 28 item 10): the server says `warming` (503) until one search of
each kind the page sends has loaded what it needs, then `ready` (200); it reports where
quickstart's background work stands."""

from __future__ import annotations

import os

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.api.warmup import Warmup, start_warmup
from papersift.background import STATUS_FILE
from papersift.search.termlexicon import lexicon_for
from papersift.server import create_app
from papersift.web.render import templates
from served_papers import TEST_HOSTS, build_served_data_dir


def test_healthz_says_warming_until_the_first_searches_ran_then_ready(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:40])
    app = create_app(data_dir, allowed_hosts=TEST_HOSTS)
    searched = []
    real_search = app.state.service.search
    app.state.service.search = lambda request: searched.append((request.query, request.mode)) or real_search(request)
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"status": "ready"}  # nothing to warm (an app made by a test)
        app.state.warmup = Warmup()
        warming = client.get("/healthz")
        assert warming.status_code == 503 and warming.json()["status"] == "warming"
        assert searched == []
        templates.cache.clear()  # the page's templates compile during the warm-up, not on the first visit
        warmup = start_warmup(app)
        assert warmup.done.wait(120)
        ready = client.get("/healthz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready" and ready.json()["warmed_in_s"] >= 0
    assert searched == [("learning", "hybrid"), ("learning", "keyword"), ("图神经网络", "hybrid")]
    assert warmup.problems == []
    # what the first Chinese query and the first query naming a paper by URL would otherwise load
    assert lexicon_for(data_dir)._keys is not None
    assert app.state.service.intents.catalog()._ids is not None
    assert {key[1] for key in templates.cache} >= {"search.html", "paper.html", "library_recommend.html"}


def test_healthz_reports_the_background_work(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:20])
    stages = [{"name": "Chinese terms", "state": "done", "started_at": 1.0, "ended_at": 2.0},
              {"name": "library features", "state": "running", "started_at": 2.0, "ended_at": None},
              {"name": "e5 vectors", "state": "waiting", "started_at": None, "ended_at": None}]
    (data_dir / STATUS_FILE).write_bytes(orjson.dumps({"pid": os.getpid(), "stages": stages}))
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        body = client.get("/healthz").json()
    assert body["background"] == {"running": "library features", "alive": True, "stages": {
        "Chinese terms": "done", "library features": "running", "e5 vectors": "waiting"}}


@pytest.mark.models  # threadpoolctl comes with the semantic extra, which the models tier has
def test_a_warmed_up_server_runs_its_vector_products_on_one_blas_thread(sample_records, tmp_path):
    """OpenBLAS's helper threads spin after each product and took the second core from the query
    encoder and the next request's reading (index/vectors.products_on_one_thread)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:20])
    app = create_app(data_dir, allowed_hosts=TEST_HOSTS)
    with threadpool_limits(limits=2, user_api="blas"):  # as numpy starts on 2 cores; restored after
        Warmup().run(app.state.service, data_dir)
        blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and set(blas) == {1}
