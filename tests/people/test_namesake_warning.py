"""Issue 28 item 8: an author page of a name several people share says so, in both languages
(/author/Yang Liu listed 131 papers of several people with no word of it)."""

from __future__ import annotations

from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.index import lexical
from papersift.ingest.pipeline import ingest_paths
from papersift.people.identity import build
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

PAPERS = [  # two people named Wei Wang, told apart by their OpenReview ids
    {"id": "P4", "title": "Graph neural networks for molecules", "authors": ["Wei Wang", "Ann Lee"],
     "author_ids": ["~Wei_Wang1", "~Ann_Lee1"]},
    {"id": "P5", "title": "Sparse attention for long documents", "authors": ["Wei Wang", "Bo Kim"],
     "author_ids": ["~Wei_Wang2", "~Bo_Kim1"]},
]
WARNINGS = {
    "by_name": {"en": "Every paper by this name is listed here: it may be several people who share it.",
                "zh": "这里列出了署这个名字的全部论文：可能是几位同名的作者。"},
    "namesakes": {"en": "Other people share this name: their papers are on their own pages below.",
                  "zh": "还有其他作者同名：他们的论文在下面各自的页面上。"},
}


def _client(data_dir, identities: bool) -> TestClient:
    source = data_dir / "papers.jsonl"
    source.write_bytes(b"".join(orjson.dumps(paper | {"venue": "ICML", "year": 2020}) + b"\n" for paper in PAPERS))
    store = Store(data_dir)
    ingest_paths(store, [source])
    if identities:
        build(store)
    store.close()
    lexical.build(data_dir)
    return TestClient(create_app(data_dir, allowed_hosts=TEST_HOSTS))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return _client(tmp_path_factory.mktemp("namesakes"), identities=True)


@pytest.fixture(scope="module")
def names_only_client(tmp_path_factory):
    return _client(tmp_path_factory.mktemp("names-only"), identities=False)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_shared_name_says_others_share_it_and_links_them(client, lang):
    page = client.get(f"/author/{quote('Wei Wang')}?lang={lang}")
    assert page.status_code == 200
    assert 'class="notice namesake-warning"' in page.text and WARNINGS["namesakes"][lang] in page.text
    assert "~Wei_Wang2" in page.text  # the other person's page is linked
    other_lang = "zh" if lang == "en" else "en"
    assert WARNINGS["namesakes"][other_lang] not in page.text  # in the page's own language only


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_name_before_identities_are_known_warns_it_may_be_several_people(names_only_client, lang):
    page = names_only_client.get(f"/author/{quote('Wei Wang')}?lang={lang}")
    assert page.status_code == 200
    assert 'class="notice namesake-warning"' in page.text and WARNINGS["by_name"][lang] in page.text


def test_a_person_alone_with_their_name_gets_no_warning(client):
    page = client.get(f"/author/{quote('~Ann_Lee1', safe='')}?lang=en")
    assert page.status_code == 200 and "namesake-warning" not in page.text
