"""Issue 28 item 6/"operators see progress on an admin/status page": /status says, in zh and en,
where the data dir stands (keyword index, papers, vectors per model, quickstart's background
work with its last log line, topic predictions, the last ingest run), names the operator's
commands with what each does, and is shown only on the server's own machine."""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest
from fastapi.testclient import TestClient

from papersift.background import LOG_FILE, _write
from papersift.index import lexical, vectors
from papersift.index.predictions import PredictionStore, StoredPrediction
from papersift.ingest.pipeline import ingest_paths
from papersift.models import DEFAULT_MODEL
from papersift.server import create_app
from papersift.store import Store

PAPERS, EMBEDDED, PREDICTED = 120, 45, 60


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.fixture(scope="module")
def status_dir(tmp_path_factory, sample_records, labeled_records):
    import gzip

    import orjson

    data_dir = tmp_path_factory.mktemp("status")
    records = [*labeled_records[:20], *[r for r in sample_records if not r["area"]][:PAPERS - 20]]
    source = data_dir.parent / "status-papers.jsonl.gz"
    with gzip.open(source, "wb") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in records))
    store = Store(data_dir)
    ingest_paths(store, [source])
    ids = [paper.id for _, paper in store.iter_papers()]
    last_seq = store.max_seq()
    store.close()
    unlabelled = [record["id"] for record in records if not record["area"]]
    with PredictionStore(data_dir) as predictions:
        predictions.write([StoredPrediction(paper_id, "Theory", None, 0.4, 0.5, (), "model-abc")
                           for paper_id in unlabelled[:PREDICTED]], "model-abc", last_seq, replace_all=True)
    lexical.build(data_dir)
    rows = np.random.default_rng(0).standard_normal((EMBEDDED, 384)).astype(np.float32)
    vectors.write_index(data_dir, DEFAULT_MODEL, ids[:EMBEDDED], rows / np.linalg.norm(rows, axis=1, keepdims=True),
                        papers_total=PAPERS, last_seq=last_seq)
    _write(data_dir, [
        {"name": "first topics", "state": "done", "started_at": 1000.0, "ended_at": 1042.0},
        {"name": "Chinese terms", "state": "done", "started_at": 1042.0, "ended_at": 1100.0},
        {"name": "e5 vectors", "state": "running", "started_at": 1100.0, "ended_at": None},
        {"name": "topics", "state": "waiting", "started_at": None, "ended_at": None},
    ])  # the chain's pid is this test's: alive
    (data_dir / LOG_FILE).write_text("[2026-12-01 10:00:00] stage 3/4: e5 vectors ...\n"
                                     "embed multilingual-e5-small: 12,000/44,693 papers, 310 papers/s\n")
    return data_dir


def _local(data_dir) -> TestClient:
    return TestClient(create_app(data_dir, allowed_hosts=("127.0.0.1", "papers.lab.example")),
                      base_url="http://127.0.0.1:8000", client=("127.0.0.1", 50000))


def test_the_status_page_says_where_everything_stands_in_english(status_dir):
    with _local(status_dir) as client:
        response = client.get("/status?lang=en")
    assert response.status_code == 200, response.text
    text = _text(response.text)
    generation = lexical.current_generation(status_dir).name
    assert f"Generation {generation}: {PAPERS} papers indexed" in text
    assert f"{PAPERS} papers: " in text and "with a title only" in text
    assert f"{DEFAULT_MODEL}: {EMBEDDED} of {PAPERS} papers ({EMBEDDED / PAPERS:.0%})" in text
    assert "1. first topic predictions (from words): done · took 42 s" in text
    assert "3. semantic vectors: running" in text and "4. topic predictions: waiting" in text
    assert "embed multilingual-e5-small: 12,000/44,693 papers" in text  # the log's last progress line
    assert (f"20 papers carry the topic their source lists (ICLR 2024); {PREDICTED} have a topic predicted by a "
            f"classifier") in text
    assert "Prediction model model-abc" in text
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC: 1 files, 120 records read, 120 added, 0 updated, "
                     r"0 rejected \(finished; 1 ingest runs in all\)", text)
    # the operators' page names the commands, each with what it does
    assert "papersift embed --data-dir D [--model NAME] computes the vectors that search by meaning reads" in text
    assert "papersift topics predict --data-dir D predicts Area · Subarea" in text


def test_the_status_page_in_chinese_has_no_english_sentences(status_dir):
    with _local(status_dir) as client:
        text = _text(client.get("/status?lang=zh").text)
    assert f"已索引 {PAPERS} 篇论文" in text and f"共 {PAPERS} 篇" in text
    assert f"{DEFAULT_MODEL}：{EMBEDDED} / {PAPERS} 篇" in text
    assert "1. 初步主题预测（按词）：完成 · 用时 42 秒" in text and "3. 语义向量：进行中" in text
    assert "20 篇论文的主题来自其来源列表（ICLR 2024）" in text and "预测模型 model-abc" in text
    assert "计算按语义检索所用的向量" in text and "（完成；共 1 次导入）" in text
    # outside the command names, model names, ids and the log line: no English words
    stripped = re.sub(r"papersift [^\u4e00-\u9fff]*|model-abc|multilingual-e5-small|embed multilingual.*?papers/s"
                      r"|ICLR 2024|[0-9a-f]{6,}|\d{4}-\d\d-\d\d \d\d:\d\d UTC|Paper Search", " ", text)
    english = [word for word in re.findall(r"[A-Za-z]{4,}", stripped)
               if word not in {"Area", "Subarea", "JSONL", "BibTeX", "English"}]  # English: the language switch
    assert english == [], english


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_status_page_is_refused_off_the_servers_machine(status_dir, lang):
    app = create_app(status_dir, allowed_hosts=("127.0.0.1", "papers.lab.example", "testserver"))
    remote = TestClient(app, base_url="http://papers.lab.example", client=("203.0.113.7", 50000))
    proxied = TestClient(app, base_url="http://papers.lab.example", client=("127.0.0.1", 50000))  # a local proxy
    for client in (remote, proxied):
        response = client.get(f"/status?lang={lang}")
        assert response.status_code == 403
        assert "/status" in response.text and "Generation" not in response.text and "generation" not in response.text
        assert ("only on the server's own machine" if lang == "en" else "状态页只在服务器本机上显示") in unescape(response.text)


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_status_and_topic_coverage_in_chromium_in_both_languages(browser, status_dir, javascript):
    """The operator's page and the topic browser's coverage line as Chromium shows them (served on
    127.0.0.1: the status page's own machine), zh and en, with JavaScript on and off."""
    from served_papers import SCREENSHOTS, serve_in_thread, watched_page

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    app = create_app(status_dir, allowed_hosts=("127.0.0.1",))
    expected = {
        "en": {"/status": ["Server status", f"{DEFAULT_MODEL}: {EMBEDDED} of {PAPERS} papers", "3. semantic vectors: running",
                           "computes the vectors that search by meaning reads"],
               "/topics": [f"{PREDICTED} have a topic predicted by a classifier", "20 papers carry the topic their source lists"]},
        "zh": {"/status": ["服务器状态", f"{DEFAULT_MODEL}：{EMBEDDED} / {PAPERS} 篇", "3. 语义向量：进行中", "计算按语义检索所用的向量"],
               "/topics": [f"{PREDICTED} 篇的主题由分类器预测", "20 篇论文的主题来自其来源列表"]},
    }
    with serve_in_thread(app) as base_url:
        context = browser.new_context(base_url=base_url, java_script_enabled=javascript)
        page, errors = watched_page(context)
        for lang, pages in expected.items():
            for path, sentences in pages.items():
                page.goto(f"{path}?lang={lang}")
                shown = " ".join(page.locator("main").inner_text().split())
                for sentence in sentences:
                    assert sentence in shown, (lang, path, sentence, shown[:1500])
                page.screenshot(path=SCREENSHOTS / f"status-{path.strip('/')}-{lang}-js-{'on' if javascript else 'off'}.png",
                                full_page=True)
            page.goto(f"/?q=&mode=keyword&lang={lang}")  # the results page's area facet says what it covers
            facet = " ".join(page.locator('section.facet[data-facet="area"]').inner_text().split())
            assert expected[lang]["/topics"][1] in facet, (lang, facet)
        context.close()
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_data_dir_without_the_background_chain_has_a_status_page_too(tmp_path, sample_records, lang):
    """`papersift index` + `serve` (no quickstart): no background.json, so no log line to show."""
    import gzip

    import orjson

    source = tmp_path / "papers.jsonl.gz"
    with gzip.open(source, "wb") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[:30]))
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    ingest_paths(store, [source])
    store.close()
    lexical.build(data_dir)
    with _local(data_dir) as client:
        response = client.get(f"/status?lang={lang}")
    assert response.status_code == 200, response.text
    assert "status_last_log" not in response.text and ("Last line of the log" not in response.text)
