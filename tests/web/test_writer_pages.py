"""One sign-in per browser on a personal server (issue 28 item 3; web/writer_pages.py): with
writes on and no accounts, no page asks for the write token in its forms; a browser not signed in
gets one sign-in link and no forms; the link quickstart prints (/signin?token=...) or the sign-in
form sets the writer cookie, then tag / save forms work without a token field."""

from __future__ import annotations

from urllib.parse import urlencode

import lxml.html
from fastapi.testclient import TestClient

from papersift.library.entries import Library
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS, build_served_data_dir

TOKEN = "writer-pages-token-24-chars"


def _app(sample_records, tmp_path):
    return create_app(build_served_data_dir(tmp_path / "data", sample_records[:40]), enable_writes=True,
                      write_token=TOKEN, allowed_hosts=TEST_HOSTS)


def _fields(html: str, css_class: str) -> list[tuple[str, str]]:
    forms = lxml.html.fromstring(html).xpath(f'.//form[contains(@class, "{css_class}")]')
    assert len(forms) == 1, f"expected one form.{css_class}"
    return [(field.get("name"), field.get("value") or "") for field in forms[0].xpath(".//input") if field.get("name")]


def test_a_browser_signs_in_once_then_tags_and_saves_without_a_token_field(sample_records, tmp_path):
    app = _app(sample_records, tmp_path)
    with TestClient(app, follow_redirects=False) as client:
        before = client.get("/", params={"q": "learning", "mode": "keyword", "lang": "en"}).text
        tree = lxml.html.fromstring(before)
        assert not tree.xpath('.//input[@name="token"]') and not tree.xpath('.//form[@method="post"]')
        hint = tree.xpath('.//p[@class="sign-in-hint"]/a')
        assert len(hint) == 1 and hint[0].get("href").startswith("/signin?next=%2F%3Fq%3Dlearning")
        assert "Sign in" in [link.text for link in tree.xpath('.//nav[@class="site-nav"]/a')]

        wrong = client.get("/signin", params={"token": "not-the-token-at-all", "lang": "en"})
        assert wrong.status_code == 401 and "papersift_writer" not in wrong.headers.get("set-cookie", "")
        assert "not this server" in wrong.text
        signed = client.get("/signin", params={"token": TOKEN, "next": "/?q=learning&lang=en"})
        assert signed.status_code == 303 and signed.headers["location"] == "/?q=learning&lang=en"
        cookie = signed.headers["set-cookie"]
        assert "papersift_writer=" in cookie and "httponly" in cookie.lower() and TOKEN not in cookie

        page = client.get("/", params={"q": "learning", "mode": "keyword", "lang": "en"}).text
        tree = lxml.html.fromstring(page)
        assert not tree.xpath('.//input[@name="token"]') and not tree.xpath('.//p[@class="sign-in-hint"]')
        marks = _fields(page, "marks-form")
        paper_id = next(value for name, value in marks if name == "paper-1")
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        tagging = [*[item for item in marks if item[0] != "tag-1"], ("do", "tag:1"), ("tag-1", "mine")]
        tagged = client.post("/library/marks", content=urlencode(tagging), headers=form)
        assert tagged.status_code == 303
        saving = [*[item for item in _fields(page, "save-search") if item[0] != "name"], ("name", "learning")]
        saved = client.post("/saved", content=urlencode(saving), headers=form)
        assert saved.status_code == 303 and saved.headers["location"] == "/saved/1?lang=en"

        signout = _fields(client.get("/signin", params={"lang": "en"}).text, "signout-form")
        out = client.post("/signout", content=urlencode(signout), headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert out.status_code == 303
        refused = client.post("/library/marks", content=urlencode([*marks, ("do", "like:1")]),
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert refused.status_code == 401
    data_dir = app.state.settings.data_dir
    entries = Library(Store(data_dir, readonly=True)).entries()
    assert [(entry.paper_id, entry.tags, entry.rating) for entry in entries] == [(paper_id, ("mine",), 0)]


def test_the_sign_in_form_takes_the_token_once_and_a_wrong_one_is_refused(sample_records, tmp_path):
    app = _app(sample_records, tmp_path)
    with TestClient(app, follow_redirects=False) as client:
        page = client.get("/signin", params={"lang": "zh", "next": "/library?lang=zh"})
        assert page.status_code == 200 and "写入令牌" in page.text
        fields = [(name, value) for name, value in _fields(page.text, "signin-form") if name != "token"]
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        wrong = client.post("/signin", content=urlencode([*fields, ("token", "wrong-token-wrong-token")]), headers=headers)
        assert wrong.status_code == 401 and "这不是本服务器的写入令牌" in wrong.text
        forged = client.post("/signin", content=urlencode([("csrf", "forged"), ("token", TOKEN)]), headers=headers)
        assert forged.status_code == 403
        right = client.post("/signin", content=urlencode([*fields, ("token", TOKEN)]), headers=headers)
        assert right.status_code == 303 and right.headers["location"] == "/library?lang=zh"
        assert "form" in client.get("/library", params={"lang": "zh"}).text
        assert client.get("/signin", params={"next": "//evil.example", "token": TOKEN}).headers["location"] == "/"


def test_a_read_only_server_offers_no_sign_in(client):
    html = client.get("/", params={"q": "graph", "lang": "en"}).text
    assert "sign-in-hint" not in html and "/signin" not in html
    assert client.get("/signin", params={"token": "x" * 30, "lang": "en"}).status_code == 200
