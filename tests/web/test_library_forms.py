"""The library from the page: each hit's tag / like / not-interested controls (one CSRF'd form
per page, no JavaScript needed: 303 back; with `Accept: application/json` the JSON the script
uses), the library page's note / reading-state / remove forms and its import form; a read-only
server shows the marks but no controls; bad tokens are refused; no open redirect."""

from __future__ import annotations

from urllib.parse import urlencode

import lxml.html
import pytest
from fastapi.testclient import TestClient

from papersift.library.entries import Library
from papersift.server import create_app
from served_papers import TEST_HOSTS, XSS_TITLE, build_served_data_dir, writable_client

TOKEN = "library-forms-token-24-chars"


@pytest.fixture()
def served(sample_records, tmp_path):
    with writable_client(sample_records[:60], tmp_path / "data", TOKEN, follow_redirects=False) as (client, data_dir):
        yield client, data_dir


def _form_fields(html: str, css_class: str) -> tuple[str, list[tuple[str, str]]]:
    forms = lxml.html.fromstring(html).xpath(f'.//form[contains(@class, "{css_class}")]')
    assert len(forms) == 1, f"expected one form.{css_class}"
    fields = [(field.get("name"), field.get("value") or "") for field in forms[0].xpath(".//input")
              if field.get("name") and field.get("name") != "token"]
    return forms[0].get("action"), fields


def _post(client, action, fields, token=TOKEN, json=False, **set_values):
    values = [(name, set_values.pop(name, value)) for name, value in fields] + list(set_values.items())
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if json:
        headers["Accept"] = "application/json"
    return client.post(action, content=urlencode([*values, ("token", token)]), headers=headers)


def _hit_index(fields, paper_id: str) -> str:
    return next(name.removeprefix("paper-") for name, value in fields if name.startswith("paper-") and value == paper_id)


def test_tag_like_and_not_interested_from_the_results_without_javascript(served):
    client, data_dir = served
    page = client.get("/", params={"q": "transformers", "mode": "keyword", "lang": "en"})
    action, fields = _form_fields(page.text, "marks-form")
    assert action == "/library/marks" and ("back", "/?q=transformers&mode=keyword&lang=en") in fields
    ids = [value for name, value in fields if name.startswith("paper-")]
    assert len(ids) >= 3
    first, second, third = (_hit_index(fields, paper_id) for paper_id in ids[:3])
    tagged = _post(client, action, fields, do=f"tag:{first}", **{f"tag-{first}": XSS_TITLE})
    assert tagged.status_code == 303 and tagged.headers["location"] == "/?q=transformers&mode=keyword&lang=en"
    # Enter in a tag box sends the default button: every tag typed on the page is added.
    both = _post(client, action, fields, do="tags", **{f"tag-{second}": "rl", f"tag-{third}": "rl"})
    assert both.status_code == 303
    assert _post(client, action, fields, do=f"dislike:{third}").status_code == 303
    library = Library.open(data_dir, readonly=True)
    assert library.tags() == {XSS_TITLE: 1, "rl": 2} and library.rated(-1) == [ids[2]]
    again = client.get("/", params={"q": "transformers", "mode": "keyword", "lang": "en"}).text
    assert "<img src=x" not in again and "&lt;img src=x onerror=alert(1)&gt;" in again  # the tag, escaped
    assert again.count('class="badge not-interested"') == 1 and '<option value="rl">' in again
    # What the script gets: the hit's entry as JSON (like, then like again clears it).
    liked = _post(client, action, fields, json=True, do=f"like:{first}")
    assert liked.status_code == 200 and liked.json()["entries"][0]["rating"] == 1
    assert liked.json()["entries"][0]["tags"] == [XSS_TITLE]
    assert _post(client, action, fields, json=True, do=f"none:{first}").json()["entries"][0]["rating"] == 0


def test_recommended_papers_carry_the_same_controls(served, sample_records):
    from papersift.library.features import build_features

    client, data_dir = served
    seed = [record["id"] for record in sample_records[:4]]
    Library.open(data_dir).tag(seed, "seed")
    build_features(data_dir)
    page = client.get("/library/recommend", params={"tag": "seed", "lang": "en", "k": 5})
    assert page.status_code == 200
    action, fields = _form_fields(page.text, "marks-form")
    back = "/library/recommend?tag=seed&lang=en&k=5"
    assert action == "/library/marks" and ("back", back) in fields
    ids = [value for name, value in fields if name.startswith("paper-")]
    assert len(ids) == 5 and not set(ids) & set(seed)
    assert page.text.count('class="hit-marks"') == 5 and '<option value="seed">' in page.text
    first, second = (_hit_index(fields, paper_id) for paper_id in ids[:2])
    tagged = _post(client, action, fields, do=f"tag:{first}", **{f"tag-{first}": XSS_TITLE})
    assert tagged.status_code == 303 and tagged.headers["location"] == back  # no JavaScript: back to the page
    assert _post(client, action, fields, do=f"dislike:{second}").status_code == 303
    liked = _post(client, action, fields, json=True, do=f"like:{first}")  # what static/library.js sends
    assert liked.status_code == 200 and liked.json()["entries"][0] == {**liked.json()["entries"][0], "rating": 1,
                                                                       "tags": [XSS_TITLE]}
    library = Library.open(data_dir, readonly=True)
    assert library.tagged(XSS_TITLE) == [ids[0]] and library.rated(-1) == [ids[1]] and library.rated(1) == [ids[0]]
    again = client.get("/library/recommend", params={"tag": "seed", "lang": "en", "k": 5}).text
    assert "<img src=x" not in again and "&lt;img src=x onerror=alert(1)&gt;" in again  # the new tag, offered escaped
    _, fields_again = _form_fields(again, "marks-form")
    assert not {value for name, value in fields_again if name.startswith("paper-")} & set(ids[:2])  # kept or refused


def test_the_forms_refuse_bad_tokens_and_foreign_redirects(served):
    client, data_dir = served
    page = client.get("/", params={"q": "transformers", "lang": "en"})
    action, fields = _form_fields(page.text, "marks-form")
    index = _hit_index(fields, next(value for name, value in fields if name.startswith("paper-")))
    assert _post(client, action, fields, token="wrong-token-of-24-chars!", do=f"like:{index}").status_code == 401
    assert _post(client, action, fields, csrf="forged", do=f"like:{index}").status_code == 403
    assert _post(client, action, fields, json=True, do=f"tag:{index}").status_code == 422  # empty tag
    away = _post(client, action, fields, back="//evil.example/", do=f"like:{index}")
    assert away.status_code == 303 and away.headers["location"] == "/library"
    assert Library.open(data_dir, readonly=True).rated(1)  # only the last one wrote


def test_a_read_only_server_shows_marks_but_no_controls(sample_records, tmp_path):
    data_dir = build_served_data_dir(tmp_path / "data", sample_records[:60])
    library = Library.open(data_dir)
    page_ids = [record["id"] for record in sample_records[:60]]
    library.tag(page_ids, "everything")
    library.store.close()
    with TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as client:
        page = client.get("/", params={"q": "learning", "mode": "keyword", "lang": "en"}).text
        assert 'class="marks-form"' not in page and 'name="do"' not in page
        assert page.count('class="badge tag"') >= 3
        assert client.post("/library/marks", content="do=like:1").status_code == 403
        from papersift.library.features import build_features

        build_features(data_dir)
        Library.open(data_dir).tag(page_ids[:1], "one")
        recommended = client.get("/library/recommend", params={"lang": "en", "k": 3}).text
        assert '<li class="recommendation' in recommended and 'class="marks-form"' not in recommended
        assert 'name="do"' not in recommended


def test_notes_reading_state_and_import_from_the_library_page(served, sample_records):
    client, data_dir = served
    ids = [record["id"] for record in sample_records[:3]]
    Library.open(data_dir).tag(ids, "seed")
    action, fields = _form_fields(client.get("/library", params={"lang": "en"}).text, "library-form")
    index = _hit_index(fields, ids[1])
    saved = _post(client, action, fields, do=f"save:{index}", **{f"note-{index}": "<b>check</b> Table 3",
                                                                  f"reading-{index}": "to-read"})
    assert saved.status_code == 303 and saved.headers["location"] == "/library?lang=en"
    entry = Library.open(data_dir, readonly=True).entry(ids[1])
    assert entry.note == "<b>check</b> Table 3" and entry.reading == "to-read"
    page = client.get("/library", params={"lang": "en"}).text
    assert "&lt;b&gt;check&lt;/b&gt; Table 3" in page and "<b>check</b>" not in page
    _, import_fields = _form_fields(page, "library-import")
    known = sample_records[10]
    bibtex = (f"@inproceedings{{a,\n  title = {{{known['title']}}},\n  year = {{{known['year']}}}\n}}\n"
              "@article{b,\n  title = {A Paper That Is Not Here At All},\n  year = {1999}\n}\n")
    report = client.post("/library/import", data={**dict(import_fields), "token": TOKEN, "tag": "imported"},
                         files={"file": ("mine.bib", bibtex.encode(), "application/x-bibtex")})
    assert report.status_code == 200, report.text
    assert "1 of 2 entries matched (bibtex)." in report.text and "A Paper That Is Not Here At All" in report.text
    assert Library.open(data_dir, readonly=True).tagged("imported") == [known["id"]]
    forged = client.post("/library/import", data={**dict(import_fields), "token": TOKEN, "csrf": "x"},
                         files={"file": ("mine.bib", bibtex.encode(), "application/x-bibtex")})
    assert forged.status_code == 403


def test_the_import_form_is_bounded_like_the_api(served, monkeypatch):
    """The page's import shares the API's bounds and slots: a file over the entry bound is
    refused (413, escaped, naming the file) before it is parsed; a second import of the user's
    while one runs is 429."""
    from papersift.library import interchange

    client, _ = served
    monkeypatch.setattr(interchange, "MAX_IMPORT_ENTRIES", 100)
    monkeypatch.setattr(interchange, "read_entries", lambda *_: pytest.fail("parsed a refused import"))
    _, import_fields = _form_fields(client.get("/library", params={"lang": "en"}).text, "library-import")
    many = b"".join(b"@misc{k%d, title={T %d}}\n" % (number, number) for number in range(101))
    refused = client.post("/library/import", data={**dict(import_fields), "token": TOKEN},
                          files={"file": ("<many>.bib", many, "application/x-bibtex")},
                          headers={"Accept": "text/html", "Accept-Language": "en"})
    assert refused.status_code == 413 and "<many>" not in refused.text
    assert "&lt;many&gt;.bib has over 100 entries, the most one import takes" in refused.text
    with client.app.state.import_slots.hold("local"):
        busy = client.post("/library/import", data={**dict(import_fields), "token": TOKEN},
                           files={"file": ("few.bib", many[:60], "application/x-bibtex")})
        assert busy.status_code == 429 and busy.headers["Retry-After"]
