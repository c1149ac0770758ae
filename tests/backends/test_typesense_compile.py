"""Compiling a query on the Typesense backend keeps its state per request (no cluster needed:
the one call that asks the cluster, whether a word is an author's name, is stubbed)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_query import QueryCompiler
from papersift.search.query import parse_query
from papersift.search.types import UnsupportedFilterError


class GatedBackend(TypesenseBackend):
    """Every word is an author's name, and both requests must be mid-compile before either
    learns so: the interleaving that let two queries swap author candidates, every time."""

    def __init__(self):  # no cluster: only compile() is exercised
        self.gate = threading.Barrier(2, timeout=10)

    def _is_author(self, name_term: str) -> bool:
        self.gate.wait()
        return True


def test_concurrent_queries_keep_their_own_author_candidates():
    backend = GatedBackend()
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda text: backend.compile(parse_query(text)), ["hinton", "bengio"])
    assert first.author_words == [(("hinton",), "hinton")]
    assert second.author_words == [(("bengio",), "bengio")]


@pytest.mark.parametrize("text", ["has:code", 'institution:"Google DeepMind"', "graph -has:code"])
def test_filters_the_collection_lacks_are_refused_not_ignored(text):
    with pytest.raises(UnsupportedFilterError, match="Typesense backend cannot filter"):
        QueryCompiler.filters(parse_query(text))
