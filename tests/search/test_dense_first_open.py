"""Requests that arrive while the first one opens the vector index wait for it, instead of
answering from "no index" (five concurrent first requests: one came back with no hits)."""

from __future__ import annotations

import threading

import pytest
from tests.search.conftest import indexed_copy

from hybrid_service import add_vectors_and_bridge
from papersift.search import semantic
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService


class SignallingLock:
    """A lock that says when a second thread starts waiting for it."""

    def __init__(self, waiting: threading.Event):
        self._lock = threading.Lock()
        self._waiting = waiting

    def __enter__(self):
        if self._lock.locked():
            self._waiting.set()
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()


@pytest.fixture(scope="module")
def vector_dir(sample_data_dir, tmp_path_factory):
    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("first_open"))
    add_vectors_and_bridge(data_dir)
    return data_dir


def test_a_request_during_the_first_open_waits_for_the_index(vector_dir, monkeypatch):
    retriever = DenseRetriever(vector_dir, SearchService(vector_dir))
    second_started = threading.Event()
    retriever._lock = SignallingLock(second_started)
    opening = threading.Event()
    real_generation = semantic.vector_store.current_generation

    def slow_generation(*args):  # the first look holds the lock until the second reader has shown up
        if not opening.is_set():
            opening.set()
            assert second_started.wait(30)
        return real_generation(*args)

    monkeypatch.setattr(semantic.vector_store, "current_generation", slow_generation)
    seen = {}

    def second_reader():
        opening.wait(30)
        seen["index"] = retriever.index
        second_started.set()  # the old code never waits: let the first open finish

    thread = threading.Thread(target=second_reader)
    thread.start()
    first = retriever.index
    thread.join(30)
    assert first is not None
    assert seen["index"] is first
