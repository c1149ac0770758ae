"""Everything a zh page shows is Chinese (issue 28 items 6 and 7): over a data dir whose papers
are written in Chinese (so any Latin word on a page is the page's own), every page a reader
reaches in zh (results with the library controls, a paper, similar papers, the library, a tag's
recommendations, saved searches, author, venue, topics, sign-in, error pages) has no English
word outside a short list of names and formats, in its text or in the attributes a reader sees
(title, placeholder, aria-label, alt). It also fails on a command name (`papersift ...`) shown
to a reader: pages say what to expect, not what an operator types."""

from __future__ import annotations

import re
from urllib.parse import quote

import lxml.html
import pytest
from fastapi.testclient import TestClient

from papersift.index import lexical
from papersift.library.entries import Library
from papersift.library.features import build_features
from papersift.record import paper_from_dict
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

TOKEN = "zh-pages-token-24-characters"
# Names and formats that stay as they are in Chinese text: the venue (data), the query syntax the
# placeholder shows, the export formats, the keys, and a status as the source lists it.
ALLOWED = {"ICLR", "GNN", "BibTeX", "RIS", "CSL", "JSON", "Atom", "API", "PDF", "CSV", "bibtex", "ris", "csl", "json",
           "csv", "csl-json", "CSL-JSON", "author", "venue", "year", "Oral", "Poster", "j", "k", "t", "l", "n", "o", "Esc", "Tab", "Enter"}
SEEN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


def _records() -> list[dict]:
    return [{"id": f"ZH-2024-{number}", "title": f"图神经网络 GNN 研究 第{number}篇", "venue": "ICLR", "year": 2024,
             "status": "Oral" if number % 2 else "Poster", "authors": ["张伟", "李娜"],
             "abstract": f"我们研究图神经网络 GNN 的表达能力与泛化，第{number}篇论文给出新的理论分析和实验结果。"}
            for number in range(30)]


def visible_text(html: str) -> str:
    """The page's text and the attributes a reader sees, without scripts, the BibTeX block, the
    COinS data Zotero reads, and the other language's name on the language switch."""
    tree = lxml.html.document_fromstring(html)
    for dropped in tree.xpath("//script | //style | //pre[contains(@class, 'bibtex')] | //head | //*[@class='Z3988']"
                              " | //*[@class='lang-switch']"):
        dropped.drop_tree()
    body = tree.xpath("//body")[0]
    texts = [body.text_content()]
    for attribute in SEEN_ATTRIBUTES:
        texts += [element.get(attribute) for element in body.xpath(f"//*[@{attribute}]")]
    return " ".join(texts)


def english_words(html: str) -> list[str]:
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", visible_text(html))  # a command ("papersift embed") is caught too
    return sorted({word for word in words if word not in ALLOWED})


@pytest.fixture()
def zh_client(tmp_path):
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in _records()])
    store.close()
    lexical.build(data_dir)
    library = Library.open(data_dir)
    library.tag(["ZH-2024-1", "ZH-2024-2", "ZH-2024-3"], "图学习")
    library.store.close()
    app = create_app(data_dir, enable_writes=True, write_token=TOKEN, allowed_hosts=TEST_HOSTS)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/signin", params={"token": TOKEN}, follow_redirects=False).status_code == 303
        yield client, data_dir


PAGES = ["/?q=GNN&mode=keyword", "/?q=GNN&mode=hybrid", "/paper/ZH-2024-1", "/paper/ZH-2024-1/similar", "/library",
         "/library?tag=" + quote("图学习"), "/library/recommend?tag=" + quote("图学习"), "/saved", "/author/" + quote("张伟"),
         "/venue/ICLR", "/venue/ICLR/2024", "/topics", "/signin", "/paper/NO-SUCH-PAPER", "/?page=100000",
         "/?q=%22unclosed", "/venue/NOWHERE"]


def test_every_zh_page_is_chinese(zh_client):
    client, data_dir = zh_client
    page = client.get("/", params={"q": "GNN", "lang": "zh"}).text
    save = lxml.html.fromstring(page).xpath('//form[@class="save-search"]')[0]
    fields = {field.get("name"): field.get("value") or "" for field in save.xpath(".//input")}
    assert client.post("/saved", data={**fields, "name": "图"}, follow_redirects=False).status_code == 303
    found = {}
    for path in [*PAGES, "/saved/1"]:
        response = client.get(path + ("&" if "?" in path else "?") + "lang=zh", headers={"Accept": "text/html"})
        assert "text/html" in response.headers["content-type"], (path, response.status_code, response.text[:300])
        html = response.text
        words = english_words(html)
        if words:
            found[path] = words
    build_features(data_dir)
    for path in ("/library/recommend?tag=" + quote("图学习"),):
        words = english_words(client.get(path + "&lang=zh").text)
        if words:
            found[path + " (with features)"] = words
    assert found == {}, "\n".join(f"{path}: {' '.join(words)}" for path, words in found.items())
