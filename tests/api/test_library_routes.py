"""/api/library: changes pass the write gate before their body is read; reads list the
library; export and import round trip through the API."""

from __future__ import annotations

import pytest

from papersift.library.entries import Library
from papersift.store import Store
from served_papers import writable_client

TOKEN = "library-token-of-24-chars"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def writable(sample_records, tmp_path):
    with writable_client(sample_records[:60], tmp_path / "data", TOKEN) as (client, data_dir):
        yield client, data_dir


def _ids(sample_records, count):
    return [record["id"] for record in sample_records[:count]]


def test_changes_are_refused_on_a_read_only_server_and_reads_are_empty(client, served_data_dir, sample_records):
    response = client.post("/api/library/tag", json={"tag": "x", "paper_ids": _ids(sample_records, 1)}, headers=AUTH)
    assert response.status_code == 403 and response.json()["error"] == "writes_disabled"
    listed = client.get("/api/library").json()
    assert listed["total"] == 0 and listed["entries"] == [] and listed["tags"] == {}
    assert Library(Store(served_data_dir, readonly=True)).entries() == []


@pytest.mark.parametrize("path", ["/api/library/tag", "/api/library/rating", "/api/library/note",
                                  "/api/library/reading", "/api/library/remove", "/api/library/import"])
def test_every_change_needs_the_token_before_its_body_is_read(writable, path):
    client, _ = writable
    response = client.post(path, content=b"not json at all", headers={"Authorization": "Bearer wrong-token-wrong"})
    assert response.status_code == 401  # not 422: the body was never parsed


def test_tag_mark_note_read_list_and_export(writable, sample_records):
    client, data_dir = writable
    ids = _ids(sample_records, 4)
    assert client.post("/api/library/tag", json={"tag": "diffusion", "paper_ids": ids[:3]}, headers=AUTH).json() == {
        "ok": True, "changed": 3}
    assert client.post("/api/library/rating", json={"rating": "dislike", "paper_ids": ids[3:]}, headers=AUTH).status_code == 200
    assert client.post("/api/library/note", json={"paper_id": ids[0], "note": "<b>read me</b>"}, headers=AUTH).status_code == 200
    assert client.post("/api/library/reading", json={"state": "read", "paper_ids": ids[:1]}, headers=AUTH).status_code == 200
    listed = client.get("/api/library", params={"tag": "diffusion"}).json()
    assert listed["tags"] == {"diffusion": 3} and listed["total"] == 3
    first = next(entry for entry in listed["entries"] if entry["paper_id"] == ids[0])
    assert first["note"] == "<b>read me</b>" and first["reading"] == "read"
    assert first["paper"]["title"] == sample_records[0]["title"]
    assert [entry["paper_id"] for entry in client.get("/api/library", params={"rating": "dislike"}).json()["entries"]] == ids[3:]
    exported = client.get("/api/library/export", params={"format": "ris"})
    assert exported.status_code == 200 and exported.text.count("ER  -") == 4
    assert exported.headers["content-type"].startswith("application/x-research-info-systems")
    assert client.post("/api/library/untag", json={"tag": "diffusion", "paper_ids": ids[2:3]}, headers=AUTH).json()["changed"] == 1
    assert client.post("/api/library/remove", json={"paper_ids": ids[3:]}, headers=AUTH).json()["changed"] == 1
    assert client.get("/api/library/tags").json() == {"tags": {"diffusion": 2}}
    assert Library.open(data_dir).tagged("diffusion") == ids[:2]


@pytest.mark.parametrize(("path", "body", "problem"), [
    ("/api/library/tag", {"tag": "x", "paper_ids": ["NOPE-0"]}, "paper 'NOPE-0': no such paper"),
    ("/api/library/tag", {"tag": "x", "paper_ids": []}, "paper_ids"),
    ("/api/library/tag", {"tag": "x", "paper_ids": ["a"], "extra": 1}, "extra"),
    ("/api/library/rating", {"rating": "love", "paper_ids": ["a"]}, "rating"),
    ("/api/library/note", {"paper_id": "a", "note": "n" * 20_001}, "note"),
    ("/api/library/reading", {"state": "later", "paper_ids": ["a"]}, "state"),
])
def test_bad_changes_are_422_naming_the_problem(writable, path, body, problem):
    client, data_dir = writable
    response = client.post(path, json=body, headers=AUTH)
    assert response.status_code == 422 and problem in response.json()["message"]
    assert Library.open(data_dir).entries() == []


def test_import_through_the_api_reports_each_miss(writable, sample_records):
    client, data_dir = writable
    client.post("/api/library/tag", json={"tag": "kept", "paper_ids": _ids(sample_records, 5)}, headers=AUTH)
    bibtex = client.get("/api/library/export", params={"format": "bibtex"}).text
    bibtex += "\n@misc{missing, title={Not In This Corpus}, year={2011}}\n"
    client.post("/api/library/remove", json={"paper_ids": _ids(sample_records, 5)}, headers=AUTH)
    response = client.post("/api/library/import", params={"tag": "again"}, content=bibtex.encode(), headers=AUTH)
    summary = response.json()
    assert response.status_code == 200 and summary["matched"] == 5 and summary["unmatched"] == 1
    assert summary["problems"][0].startswith("entry missing (line")
    assert sorted(Library.open(data_dir).tagged("again")) == sorted(_ids(sample_records, 5))
    bad = client.post("/api/library/import", content=b"hello", headers=AUTH)
    assert bad.status_code == 422 and "cannot tell the format" in bad.json()["message"]


def test_the_routes_are_in_the_openapi_document(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/library", "/api/library/tag", "/api/library/export", "/api/library/import"} <= set(paths)


def _deep_learning_ids(records) -> set[str]:
    return {record["id"] for record in records if record.get("area") == "Deep Learning"} | {"TEST-2024-hostile"}


def test_recommendations_read_the_features_and_never_build_them(writable, sample_records):
    from papersift.library.features import FEATURES_DIR, build_features

    client, data_dir = writable
    ids = _ids(sample_records, 8)
    client.post("/api/library/tag", json={"tag": "mine", "paper_ids": ids[:6]}, headers=AUTH)
    client.post("/api/library/rating", json={"rating": "dislike", "paper_ids": ids[6:]}, headers=AUTH)
    missing = client.get("/api/library/recommendations", params={"tag": "mine"})
    assert missing.status_code == 200 and missing.json()["hits"] == []
    assert "papersift library features" in missing.json()["notices"][0]
    assert not (data_dir / FEATURES_DIR).exists()

    build_features(data_dir)  # what the command does
    answer = client.get("/api/library/recommendations", params={"tag": "mine", "k": 5}).json()
    assert answer["learned_from"]["positives"] == 6 and answer["learned_from"]["not_interested"] == 2
    assert len(answer["hits"]) == 5 and not {hit["paper"]["id"] for hit in answer["hits"]} & set(ids)
    first = answer["hits"][0]
    assert first["because"] and first["explanation"].startswith("like the ")
    assert "in tag 'mine': " in first["explanation"]
    filtered = client.get("/api/library/recommendations",
                          params={"tag": "mine", "venue": "AISTATS", "year_from": 2012, "year_to": 2013}).json()
    assert filtered["hits"] and all(hit["paper"]["venue"] == "AISTATS" and 2012 <= hit["paper"]["year"] <= 2013
                                    for hit in filtered["hits"])
    assert client.get("/api/library/recommendations", params={"tag": "mine", "venue": "Nowhere"}).json()["hits"] == []
    # The search's filter parameters and parsing: the query language's filters in q, and area.
    in_q = client.get("/api/library/recommendations", params={"tag": "mine", "q": "venue:AISTATS year:2012..2013"}).json()
    assert [hit["paper"]["id"] for hit in in_q["hits"]] == [hit["paper"]["id"] for hit in filtered["hits"]]
    by_area = client.get("/api/library/recommendations", params={"tag": "mine", "area": "Deep Learning"}).json()
    assert by_area["hits"] and {hit["paper"]["id"] for hit in by_area["hits"]} <= _deep_learning_ids(sample_records)
    bad = client.get("/api/library/recommendations", params={"tag": "mine", "q": 'venue:"unclosed'})
    assert bad.status_code == 422 and "unclosed quote" in bad.json()["message"]
    empty = client.get("/api/library/recommendations", params={"tag": "no such tag"})
    assert empty.status_code == 422 and empty.json()["error"] == "nothing_to_learn"


def _tiny_bibtex(count: int) -> bytes:
    return b"".join(b"@misc{k%d, title={T %d}}\n" % (number, number) for number in range(count))


def test_an_import_over_its_bounds_is_refused_while_it_streams_before_any_parsing(writable, monkeypatch):
    """Over MAX_IMPORT_BYTES (declared, or sent chunked without a length) or MAX_IMPORT_ENTRIES:
    413 naming the bound, and the parser never runs."""
    from papersift.library import interchange

    client, _ = writable
    monkeypatch.setattr(interchange, "read_entries", lambda *_: pytest.fail("parsed a refused import"))

    def chunked(total: int, chunk: bytes):
        for _ in range(total // len(chunk)):
            yield chunk

    over = f"the body is over the import limit of {interchange.MAX_IMPORT_BYTES:,} bytes"
    declared = client.post("/api/library/import", content=b"%" * (interchange.MAX_IMPORT_BYTES + 1), headers=AUTH)
    assert declared.status_code == 413 and declared.json()["message"] == over, declared.text
    # 12 MB: under the server's body limit (16 MB), over the import's; no Content-Length
    streamed = client.post("/api/library/import", content=chunked(12 << 20, b"%" * (1 << 20)), headers=AUTH)
    assert streamed.status_code == 413 and streamed.json()["message"] == over, streamed.text
    many = client.post("/api/library/import", content=_tiny_bibtex(interchange.MAX_IMPORT_ENTRIES + 1), headers=AUTH)
    assert many.status_code == 413
    assert many.json()["message"] == f"the body has over {interchange.MAX_IMPORT_ENTRIES:,} entries, the most one import takes"


def test_one_import_per_user_at_a_time_and_a_few_per_server(writable):
    client, _ = writable
    slots = client.app.state.import_slots
    with slots.hold("local"):  # this user's import still running
        second = client.post("/api/library/import", content=_tiny_bibtex(3), headers=AUTH)
        assert second.status_code == 429 and second.json()["error"] == "import_running"
        assert int(second.headers["Retry-After"]) > 0
    with slots.hold("alice"), slots.hold("bob"):  # the server's slots taken by others
        busy = client.post("/api/library/import", content=_tiny_bibtex(3), headers=AUTH)
        assert busy.status_code == 503 and busy.json()["error"] == "imports_busy"
    done = client.post("/api/library/import", content=_tiny_bibtex(3), headers=AUTH)
    assert done.status_code == 200 and done.json()["entries"] == 3
