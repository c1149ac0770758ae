"""Writes are off by default; when enabled they need the token."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient

from papersift.index import lexical
from papersift.ingest.pipeline import ingest_paths
from papersift.record import paper_from_dict
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir
from tiny_disk import fill_disk, tiny_disk_fixture  # noqa: F401 - the tiny_disk fixture
from write_checks import (
    FirstWriteHeld,
    assert_stored_and_indexed_once,
    synthetic_records,
    write_jsonl,
)

TOKEN = "s3cret-token-of-24-chars"
NEW_PAPER = {"id": "TEST-2025-new", "title": "Zebrafinch song grammars", "venue": "COLM", "year": 2025,
             "authors": ["New Author"], "abstract": "We parse zebrafinch songs with probabilistic grammars of birdsong."}


@pytest.fixture()
def writable_dir(sample_records, tmp_path):
    return build_served_data_dir(tmp_path / "data", sample_records[:50])


def test_writes_are_refused_by_default(client, served_data_dir):
    before = Store(served_data_dir, readonly=True).count()
    response = client.post("/api/papers", json=[NEW_PAPER], headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 403 and response.json()["error"] == "writes_disabled"
    assert Store(served_data_dir, readonly=True).count() == before


def test_enabling_writes_needs_a_token():
    with pytest.raises(ValueError, match="write_token"):
        create_app("/nonexistent", enable_writes=True)


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", "Bearer"])
def test_enabled_writes_reject_a_missing_or_wrong_token(writable_dir, header):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        headers = {"Authorization": header} if header else {}
        response = client.post("/api/papers", json=[NEW_PAPER], headers=headers)
    assert response.status_code == 401 and "Bearer" in response.json()["message"]
    assert Store(writable_dir, readonly=True).get(NEW_PAPER["id"]) is None


def test_enabled_writes_with_the_token_add_a_searchable_paper(writable_dir):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        response = client.post("/api/papers", json=[NEW_PAPER], headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200 and response.json()["added"] == 1
        hits = client.get("/api/search", params={"q": "zebrafinch", "mode": "keyword"}).json()["hits"]
    assert [hit["paper"]["id"] for hit in hits] == [NEW_PAPER["id"]]


def test_an_invalid_record_is_named(writable_dir):
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        response = client.post("/api/papers", json=[NEW_PAPER, {"title": "x", "year": "soon"}],
                               headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 422 and "record 1" in response.json()["message"] and "year" in response.json()["message"]


# -- concurrency, the same-id rule, a full disk ---------------------------------------------

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_a_post_that_waited_for_another_still_gets_its_papers_indexed(writable_dir, monkeypatch):
    """Deterministic: the first POST is held just before its write transaction while another
    writer (a second process: its own Store) stores and indexes its papers; then the first goes
    on. Its papers must be searchable (before the fix it wrote the other's seqs and its own
    index refresh skipped them). Within one server, writes queue on the store's lock, so the
    other writer must be another Store, or the hold would only time out."""
    before = {paper.id for _, paper in Store(writable_dir, readonly=True).iter_papers()}
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        # installed once the server is up: its start-up writes (the per-install form key) are not the POST's
        held = FirstWriteHeld().install(monkeypatch)
        responses = {}
        first = threading.Thread(target=lambda: responses.setdefault(
            "first", client.post("/api/papers", json=synthetic_records("first", 50), headers=AUTH)))
        first.start()
        assert held.reached.wait(60), "the first POST never reached its write"
        other = Store(writable_dir)
        assert other.upsert(paper_from_dict(record) for record in synthetic_records("second", 50)).added == 50
        lexical.update(writable_dir)
        held.go.set()
        first.join(60)
        assert not held.timed_out and responses["first"].status_code == 200
        posted = {f"{name}-{number}" for name in ("first", "second") for number in range(50)}
        assert_stored_and_indexed_once(writable_dir, before | posted)
        found = client.get("/api/search", params={"q": '"writer first"', "mode": "keyword", "size": 100}).json()
    assert found["total"] == 50


@pytest.mark.drill
def test_parallel_posts_store_and_index_every_paper(writable_dir):
    """5 clients x 4 POSTs x 50 papers at once (before the fix: 1,000 stored, ~950 searchable)."""
    before = {paper.id for _, paper in Store(writable_dir, readonly=True).iter_papers()}
    failures: list[str] = []
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        start = threading.Barrier(5)

        def post(writer: int) -> None:
            start.wait(30)
            for request in range(4):
                response = client.post("/api/papers", json=synthetic_records(f"c{writer}r{request}", 50), headers=AUTH)
                if response.status_code != 200 or response.json()["added"] != 50:
                    failures.append(f"{response.status_code} {response.text[:200]}")

        threads = [threading.Thread(target=post, args=(writer,)) for writer in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert not failures, failures
        posted = {f"c{writer}r{request}-{number}" for writer in range(5) for request in range(4) for number in range(50)}
        assert_stored_and_indexed_once(writable_dir, before | posted)
        hits = client.get("/api/search", params={"q": '"writer c4r3"', "mode": "keyword", "size": 100}).json()
    assert hits["total"] == 50


def test_a_post_with_one_id_twice_keeps_the_first_record_as_ingest_does(writable_dir, tmp_path):
    first = dict(NEW_PAPER, keywords=[])
    second = dict(NEW_PAPER, title="A later title for the same id", keywords=["songbirds"], url="https://example.org/2")
    with TestClient(create_app(writable_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)) as client:
        response = client.post("/api/papers", json=[first, second], headers=AUTH)
        assert response.status_code == 200
        assert response.json() == {"added": 1, "updated": 0, "merged": 0, "unchanged": 0}
        again = client.post("/api/papers", json=[first, second], headers=AUTH).json()
    posted = Store(writable_dir, readonly=True).get(NEW_PAPER["id"])
    assert posted.title == first["title"]  # the first record wins
    assert posted.keywords == ("songbirds",) and posted.url == "https://example.org/2"  # the later one fills gaps
    assert again == {"added": 0, "updated": 0, "merged": 0, "unchanged": 1}  # a repeat changes nothing
    ingested = Store(tmp_path / "ingested")
    ingest_paths(ingested, [write_jsonl(tmp_path / "twice.jsonl", [first, second])])
    assert ingested.get(NEW_PAPER["id"]) == posted  # one rule for both paths


def test_a_full_disk_answers_507_stores_nothing_and_recovers(tiny_disk, sample_records):
    data_dir = build_served_data_dir(tiny_disk / "data", sample_records[:50])
    before = Store(data_dir, readonly=True).count()
    app = create_app(data_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with TestClient(app, raise_server_exceptions=False) as client:
        filler = fill_disk(tiny_disk)
        response = client.post("/api/papers", json=synthetic_records("full", 200), headers=AUTH)
        assert response.status_code == 507
        assert response.json()["error"] == "storage_full" and "disk is full" in response.json()["message"]
        assert Store(data_dir, readonly=True).count() == before
        filler.unlink()
        response = client.post("/api/papers", json=synthetic_records("full", 200), headers=AUTH)
        assert response.status_code == 200 and response.json()["added"] == 200
    assert_stored_and_indexed_once(data_dir, {paper.id for _, paper in Store(data_dir, readonly=True).iter_papers()})
