"""Concurrent writers: every paper stored once, seqs unique and in commit order, and an
incremental keyword index that runs between writes finds every paper.

Before the fix a writer read the highest seq before taking the write lock: two writers
wrote the same seqs, and an index update that ran between their commits skipped the second
writer's papers for good (5 writers x 4 POSTs x 50 papers: 1,000 stored, 950 searchable).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from papersift.index import lexical
from papersift.store import DB_FILE, SCHEMA_VERSION, Store
from write_checks import (
    FirstWriteHeld,
    assert_stored_and_indexed_once,
    synthetic_papers,
    synthetic_records,
    write_jsonl,
)

PAPERSIFT = str(Path(sys.executable).parent / "papersift")


@pytest.fixture()
def indexed_dir(tmp_path) -> Path:
    """A store with 5 papers and a keyword index of them (so later updates are incremental)."""
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert(synthetic_papers("base", 5))
    store.close()
    lexical.build(data_dir)
    return data_dir


def _ids(*groups: list) -> set[str]:
    return {paper.id for group in groups for paper in group}


def test_a_writer_that_waited_for_the_lock_gets_seqs_past_every_earlier_commit(indexed_dir, monkeypatch):
    """Deterministic interleaving: the late writer is held just before its BEGIN IMMEDIATE
    (after the old code had read the highest seq) while another writer commits and the
    index updates; then it goes on."""
    held = FirstWriteHeld().install(monkeypatch)
    late_store, late_papers = Store(indexed_dir), synthetic_papers("late", 50)
    failures: list[BaseException] = []

    def write_late() -> None:
        try:
            late_store.upsert(late_papers)
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    late = threading.Thread(target=write_late)
    late.start()
    assert held.reached.wait(60), "the late writer never reached its transaction"
    early_papers = synthetic_papers("early", 50)
    Store(indexed_dir).upsert(early_papers)
    assert lexical.update(indexed_dir).added == 50
    held.go.set()
    late.join(60)
    assert not failures and not late.is_alive() and not held.timed_out
    assert lexical.update(indexed_dir).added == 50  # the late writer's papers, not skipped
    assert_stored_and_indexed_once(indexed_dir, _ids(synthetic_papers("base", 5), early_papers, late_papers))


def test_a_store_object_sees_what_another_writer_added_since_it_loaded(tmp_path):
    """Each Store keeps an in-memory catalog (record ids, title keys); another writer's commit
    must not leave it stale: the same paper under another source id still merges."""
    data_dir = tmp_path / "data"
    first, second = Store(data_dir), Store(data_dir)
    second.upsert(synthetic_papers("warm", 1))  # `second` has loaded its catalog
    paper = synthetic_papers("shared", 1)[0]
    first.upsert([paper])
    counts = second.upsert([replace(paper, id="OTHER-SOURCE-1", abstract=None)])
    assert (counts.merged, counts.added) == (1, 0)
    assert second.count() == 2 and second.get("OTHER-SOURCE-1").id == paper.id


@pytest.mark.drill
@pytest.mark.parametrize("shared_store", [False, True], ids=["store-per-thread", "one-shared-store"])
def test_parallel_writer_threads_store_and_index_every_paper(indexed_dir, shared_store):
    """5 threads x 4 batches x 50 papers, each thread updating the index after every batch."""
    shared = Store(indexed_dir) if shared_store else None
    batches = {writer: [synthetic_papers(f"t{writer}b{batch}", 50) for batch in range(4)] for writer in range(5)}
    failures: list[BaseException] = []
    start = threading.Barrier(5)

    def write(writer: int) -> None:
        try:
            store = shared or Store(indexed_dir)
            start.wait(30)
            for papers in batches[writer]:
                assert store.upsert(papers).added == 50
                lexical.update(indexed_dir)
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(writer,)) for writer in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures, failures
    lexical.update(indexed_dir)
    expected = _ids(synthetic_papers("base", 5), *(papers for writer in batches.values() for papers in writer))
    assert len(expected) == 1005
    assert_stored_and_indexed_once(indexed_dir, expected)


@pytest.mark.drill
def test_parallel_ingest_processes_store_and_index_every_paper(indexed_dir, tmp_path):
    """4 `papersift ingest` processes at once, 2 batches each, while the index keeps updating."""
    files = [write_jsonl(tmp_path / f"writer{writer}.jsonl", synthetic_records(f"p{writer}", 2500))
             for writer in range(4)]
    processes = [subprocess.Popen([PAPERSIFT, "ingest", str(path), "--data-dir", str(indexed_dir), "--json"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for path in files]
    while any(process.poll() is None for process in processes):
        lexical.update(indexed_dir)  # incremental updates between the writers' commits
    for process in processes:
        assert process.wait() == 0, process.stderr.read()
    lexical.update(indexed_dir)
    expected = {f"p{writer}-{number}" for writer in range(4) for number in range(2500)} | _ids(synthetic_papers("base", 5))
    assert_stored_and_indexed_once(indexed_dir, expected)
    assert os.listdir(indexed_dir / "ingest-runs") == []  # finished runs leave no lock files
    assert {run["status"] for run in Store(indexed_dir, readonly=True).runs()} == {"ok"}


def test_iter_papers_reads_one_snapshot_so_a_full_build_sees_each_paper_once(tmp_path):
    """A paper updated while a full build pages through the store moves to a new seq; the
    build must not meet it twice (a full build adds without deleting)."""
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    originals = synthetic_papers("snap", 6)
    store.upsert(originals)
    papers = store.iter_papers(0, batch_size=2)
    first_seq, first = next(papers)
    Store(data_dir).upsert([replace(first, title=first.title + " (revised)"), *synthetic_papers("later", 2)])
    seen = [first, *(paper for _, paper in papers)]
    assert [paper.id for paper in seen] == [paper.id for paper in originals]
    assert [paper.title for paper in seen] == [paper.title for paper in originals]  # as of the snapshot
    assert [paper.id for _, paper in store.iter_papers(first_seq)][-3:] == [first.id, "later-0", "later-1"]


def test_opening_an_old_store_gives_papers_with_a_shared_seq_new_ones_the_index_picks_up(tmp_path):
    """A store written before the fix may hold two papers per seq; the index skipped one of
    each pair. The first writable open renumbers them past the top, the next update finds them."""
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    first_writer = synthetic_papers("first", 5)
    store.upsert(first_writer)  # seqs 1..5
    store.close()
    lexical.build(data_dir)
    with sqlite3.connect(data_dir / DB_FILE) as conn:  # what the second, racing writer left
        conn.execute("DROP INDEX IF EXISTS papers_seq_unique")
        conn.execute("CREATE INDEX IF NOT EXISTS papers_seq ON papers(seq)")
        columns = [row[1] for row in conn.execute("PRAGMA table_info(papers)")]
        copied = ", ".join("'second-' || substr(id, 7)" if name == "id" else
                           "'Second ' || title" if name == "title" else
                           "dedupe_key || '-second'" if name == "dedupe_key" else name for name in columns)
        conn.execute(f"INSERT INTO papers ({', '.join(columns)}) SELECT {copied} FROM papers")
        conn.execute("PRAGMA user_version=1")
    assert lexical.update(data_dir).added == 0  # the bug: seqs 1..5 were already seen
    Store(data_dir).close()  # a writable open (ingest, a POST) migrates
    assert lexical.update(data_dir).added == 5
    assert_stored_and_indexed_once(data_dir, _ids(first_writer) | {f"second-{n}" for n in range(5)})
    with sqlite3.connect(data_dir / DB_FILE) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("UPDATE papers SET seq=1 WHERE id='first-1'")
