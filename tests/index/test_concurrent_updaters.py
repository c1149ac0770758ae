"""Several index writers at once (a POST /api/papers beside `papersift index`, two POSTs at
once): one runs at a time, across threads and processes, and a reader that refreshes
meanwhile only ever sees whole published generations."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest
from tests.index.index_checks import live_content

import papersift
from papersift.index import lexical
from papersift.index.publish import writer_lock
from papersift.record import paper_from_dict
from papersift.search.query import parse_query
from papersift.search.tantivy_backend import TantivyBackend
from papersift.store import Store

SOURCE_ROOT = str(Path(papersift.__file__).resolve().parents[1])
BLOCKED_FOR_S = 1.0  # how long a blocked writer is watched: a broken lock shows as a finished one
# A process that adds its papers to the store, a batch at a time, updating the index after each.
UPDATER = """
import sys, orjson
from papersift.index import lexical
from papersift.record import paper_from_dict
from papersift.store import Store
data_dir, path, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
records = [orjson.loads(line) for line in open(path, "rb")]
for start in range(0, len(records), batch):
    store = Store(data_dir)
    store.upsert(paper_from_dict(record) for record in records[start:start + batch])
    store.close()
    lexical.update(data_dir)
"""


def env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])))


@pytest.fixture()
def data_dir(tmp_path, sample_records) -> Path:
    folder = tmp_path / "data"
    store = Store(folder)
    store.upsert(paper_from_dict(record) for record in sample_records[:100])
    store.close()
    lexical.build(folder)
    return folder


@pytest.mark.drill
def test_a_writer_in_another_thread_waits_for_the_lock(data_dir):
    finished = threading.Event()
    updater = threading.Thread(target=lambda: (lexical.update(data_dir), finished.set()))
    with writer_lock(lexical.index_root(data_dir)):
        updater.start()
        assert not finished.wait(BLOCKED_FOR_S)
    updater.join()
    assert finished.is_set()


@pytest.mark.drill
def test_a_writer_in_another_process_waits_for_the_lock(data_dir):
    with writer_lock(lexical.index_root(data_dir)):
        build = "import sys; from papersift.index import lexical; lexical.build(sys.argv[1])"
        process = subprocess.Popen([sys.executable, "-c", build, str(data_dir)], env=env())
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(BLOCKED_FOR_S)
    assert process.wait(120) == 0


@pytest.mark.drill
def test_an_update_that_waited_works_on_the_generation_live_when_it_got_the_lock(data_dir, sample_records):
    """A POST's update waiting while `papersift index --rebuild` swaps generations must not
    work on the generation it saw before waiting (removed by then): the old code read it
    outside the lock and failed with FileNotFoundError."""
    store = Store(data_dir)
    store.upsert([paper_from_dict(sample_records[100])])
    store.close()
    root = lexical.index_root(data_dir)
    outcome: list = []
    updater = threading.Thread(target=lambda: outcome.append(_attempt(lambda: lexical.update(data_dir))))
    with writer_lock(root):
        updater.start()
        updater.join(BLOCKED_FOR_S)  # time to reach the lock (a broken lock shows as an outcome)
        assert outcome == []
        live = lexical.current_generation(data_dir)  # what a rebuild does, by hand: copy, swap, remove
        swapped = root / "gen-swapped"
        shutil.copytree(live, swapped)
        (root / "CURRENT").write_text(swapped.name)
        shutil.rmtree(live)
    updater.join()
    assert not isinstance(outcome[0], BaseException), outcome[0]
    assert outcome[0].added == 1 and outcome[0].documents == 101


def _attempt(call):
    try:
        return call()
    except Exception as problem:  # noqa: BLE001 - the test reports it
        return problem


@pytest.mark.drill
def test_parallel_updaters_and_a_reader(data_dir, sample_records, tmp_path):
    """3 threads and 2 processes add papers and update the index; a reader checks every
    generation it sees, document by document; at the end the index holds exactly the store."""
    backend = TantivyBackend(data_dir)
    stop, seen, problems = threading.Event(), set(), []

    def read() -> None:
        while not stop.is_set():
            try:
                backend.refresh(force=True)
                live = backend._current()
                seen.add((live.stamp, len(live_content(live.index, live.searcher, live.rows))))
                assert backend.search(parse_query("learning"), limit=20, with_papers=True).total > 0
            except Exception as problem:  # noqa: BLE001 - reported below, with what it was
                problems.append(repr(problem))
                return

    def write(records: list[dict]) -> None:
        for start in range(0, len(records), 10):
            store = Store(data_dir)
            store.upsert(paper_from_dict(record) for record in records[start:start + 10])
            store.close()
            lexical.update(data_dir)

    slices = [sample_records[100 + 40 * n:140 + 40 * n] for n in range(5)]
    processes = []
    for n, records in enumerate(slices[3:]):
        path = tmp_path / f"slice{n}.jsonl"
        path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
        processes.append(subprocess.Popen([sys.executable, "-c", UPDATER, str(data_dir), str(path), "10"], env=env()))
    threads = [threading.Thread(target=write, args=(records,)) for records in slices[:3]]
    reader = threading.Thread(target=read)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = [process.wait(300) for process in processes]
    stop.set()
    reader.join()
    assert codes == [0, 0] and problems == []
    assert len(seen) > 1  # the reader saw several generations
    lexical.update(data_dir)
    store = Store(data_dir, readonly=True)
    stored = {paper.id: paper for _, paper in store.iter_papers(0)}
    opened = lexical.open_index(data_dir)
    assert live_content(opened.index, opened.index.searcher(), opened.rows) == stored
    assert len(stored) == 300
    root = lexical.index_root(data_dir)
    assert sorted(path.name for path in root.iterdir()) == [".lock", "CURRENT", opened.folder.name]
