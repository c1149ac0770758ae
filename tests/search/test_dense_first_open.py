"""Requests that arrive while the first one opens the vector index wait for it, instead of
answering from "no index" (five concurrent first requests: one came back with no hits)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from tests.search.conftest import indexed_copy

from hybrid_service import CountingEncoder, add_vectors_and_bridge, unit_vector
from papersift.index.vectors import write_index
from papersift.models import DEFAULT_MODEL
from papersift.record import paper_from_dict
from papersift.search import semantic
from papersift.search.query import parse_query
from papersift.search.semantic import DenseRetriever
from papersift.search.service import SearchService
from papersift.store import Store
from papersift.throttle import Throttle
from served_papers import copy_data_dir


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


def test_a_search_during_a_generation_swap_pairs_each_index_with_its_own_mask(vector_dir, title_only_records, tmp_path):
    """The live index and its with-abstract row mask change together: a search that arrives while
    a new generation is being opened uses the old pair (the new index with the old, longer mask
    failed with a shape error)."""
    data_dir = copy_data_dir(vector_dir, tmp_path / "data")
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in title_only_records[:5]])  # rows the mask leaves out
    ids = [paper.id for _, paper in store.iter_papers()]
    last_seq = store.max_seq()
    store.close()
    write_index(data_dir, DEFAULT_MODEL, ids, np.stack([unit_vector("paper " + i) for i in ids]), len(ids), last_seq)
    retriever = DenseRetriever(data_dir, SearchService(data_dir), encoder=CountingEncoder())
    old = retriever.index
    assert old is not None and retriever._live[1] is not None and not retriever._live[1].all()
    ids = ids[:-50]  # the next generation lacks 50 papers
    write_index(data_dir, DEFAULT_MODEL, ids, np.stack([unit_vector("paper " + i) for i in ids]), len(ids), last_seq)
    retriever._reopen_due = Throttle(0)  # look for the new generation at the next access
    swapping, release = threading.Event(), threading.Event()
    real_mask = retriever._abstract_mask

    def slow_mask(index):
        swapping.set()
        assert release.wait(30)
        return real_mask(index)

    retriever._abstract_mask = slow_mask
    opener = threading.Thread(target=lambda: retriever.index)
    opener.start()
    assert swapping.wait(30)
    quiet = Throttle(3600)
    assert quiet.due()  # its first call: not due again for an hour
    retriever._reopen_due = quiet  # the search itself does not look for a generation: it must not wait
    during = retriever.rank_text("paper", parse_query(""), 10)
    release.set()
    opener.join(30)
    assert len(during) == 10
    assert retriever.index is not old and len(retriever.index) == len(ids)
    assert len(retriever.rank_text("paper", parse_query(""), 10)) == 10
