"""Group commit of index updates for API writes: every waiter returns only after an update that
started after its seq was committed, and concurrent waiters share updates."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from papersift.api.index_refresh import GroupRefresher


class FakeStore:
    """Seqs committed so far, and what each update saw when it started."""

    def __init__(self):
        self.highest = 0
        self.lock = threading.Lock()
        self.started_at: list[int] = []
        self.published = 0
        self.fail_next = False

    def commit(self) -> int:
        with self.lock:
            self.highest += 1
            return self.highest

    def update(self) -> None:
        seen = self.highest
        self.started_at.append(seen)
        time.sleep(0.05)  # an update takes a while: commits pile up meanwhile
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk full")
        self.published = max(self.published, seen)


def test_a_lone_write_runs_one_update_and_a_covered_seq_none():
    store = FakeStore()
    refresher = GroupRefresher(store.update, lambda: store.highest)
    seq = store.commit()
    refresher.wait_indexed(seq)
    assert store.published >= seq and refresher.updates == 1
    refresher.wait_indexed(seq)
    assert refresher.updates == 1


def test_concurrent_writers_share_updates_and_each_is_published_before_it_returns():
    store = FakeStore()
    refresher = GroupRefresher(store.update, lambda: store.highest)
    unpublished_on_return = []

    def writer():
        for _ in range(5):
            seq = store.commit()
            refresher.wait_indexed(seq)
            if store.published < seq:
                unpublished_on_return.append(seq)

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not unpublished_on_return
    assert store.published == store.highest == 40
    assert refresher.updates < 40  # one update per write would be 40
    assert all(a <= b for a, b in itertools.pairwise(store.started_at))


def test_a_failed_update_raises_to_its_leader_and_the_next_waiter_retries():
    store = FakeStore()
    refresher = GroupRefresher(store.update, lambda: store.highest)
    store.fail_next = True
    seq = store.commit()
    with pytest.raises(OSError, match="disk full"):
        refresher.wait_indexed(seq)
    assert store.published < seq
    refresher.wait_indexed(seq)
    assert store.published >= seq
