"""`author:` goes through author identities: a name finds the person under every spelling,
an author id finds exactly one person among namesakes."""

from __future__ import annotations

import orjson
import pytest

from papersift.index import lexical
from papersift.ingest.pipeline import ingest_paths
from papersift.people.identity import build
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store

PAPERS = [
    {"id": "P1", "title": "Provable defenses via convex relaxations", "authors": ["Zico Kolter", "Eric Wong"]},
    {"id": "P2", "title": "Fast is better than free adversarial training", "authors": ["J. Zico Kolter", "Eric Wong"]},
    {"id": "P3", "title": "Wasserstein adversarial examples", "authors": ["J Kolter", "Eric Wong"]},
    {"id": "P4", "title": "Graph neural networks for molecules", "authors": ["Wei Wang", "Ann Lee"],
     "author_ids": ["~Wei_Wang1", "~Ann_Lee1"]},
    {"id": "P5", "title": "Sparse attention for long documents", "authors": ["Wei Wang", "Bo Kim"],
     "author_ids": ["~Wei_Wang2", "~Bo_Kim1"]},
]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("identities")
    source = data_dir / "papers.jsonl"
    source.write_bytes(b"".join(orjson.dumps(paper | {"venue": "ICML", "year": 2020}) + b"\n" for paper in PAPERS))
    store = Store(data_dir)
    ingest_paths(store, [source])
    build(store)
    store.close()
    lexical.build(data_dir)
    return SearchService(data_dir)


def _ids(service, query: str) -> set[str]:
    return {hit.paper.id for hit in service.search(SearchRequest(query=query, mode="keyword")).hits}


def test_a_name_finds_every_spelling_of_the_person(service):
    assert _ids(service, 'author:"Zico Kolter"') == {"P1", "P2", "P3"}
    assert _ids(service, 'author:"J Kolter"') == {"P1", "P2", "P3"}


def test_an_author_id_finds_one_namesake(service):
    assert _ids(service, "author:~Wei_Wang1") == {"P4"}
    assert _ids(service, 'author:"Wei Wang"') == {"P4", "P5"}
    assert _ids(service, "author:~Wei_Wang2 OR author:~Ann_Lee1") == {"P4", "P5"}
    assert _ids(service, "attention NOT author:~Wei_Wang1") == {"P5"}
