"""The lexical index: built from the store, swapped in atomically, updated by store seq."""

from __future__ import annotations

import errno
import os
import threading
from dataclasses import replace

import pytest

from papersift.index import lexical
from papersift.index.rows import RowReader, decode_paper, encode_paper
from papersift.record import paper_from_dict
from papersift.search.query import parse_query
from papersift.search.tantivy_backend import TantivyBackend
from papersift.store import Store


@pytest.fixture()
def small_store(tmp_path, sample_records):
    store = Store(tmp_path / "data")
    store.upsert(paper_from_dict(record) for record in sample_records[:300])
    return store


def matches(backend: TantivyBackend, query: str) -> list[str]:
    backend.refresh(force=True)
    return backend.search(parse_query(query), limit=100, with_facets=False).paper_ids


def test_build_indexes_every_paper_and_rows_round_trip(small_store):
    result = lexical.build(small_store.data_dir)
    assert result.documents == small_store.count() == 300 and result.full
    rows = RowReader(result.folder)
    papers = {paper.id: paper for _, paper in small_store.iter_papers(0)}
    assert {rows.paper(row).id for row in range(len(rows))} == set(papers)
    assert all(rows.paper(row) == papers[paper_id] for row, paper_id in enumerate(rows.paper_ids(list(range(len(rows))))))
    assert lexical.IndexMeta.read(result.folder).last_seq == small_store.max_seq()


def test_record_encoding_round_trips(sample_records):
    paper = paper_from_dict(sample_records[0])
    assert decode_paper(encode_paper(paper)) == paper


def test_update_adds_and_replaces_by_seq(small_store, sample_records):
    lexical.build(small_store.data_dir)
    backend = TantivyBackend(small_store.data_dir)
    assert matches(backend, "zyxwvutsrq") == []
    changed = replace(next(p for _, p in small_store.iter_papers(0)), title="Zyxwvutsrq: a changed title")
    small_store.upsert([changed, paper_from_dict(sample_records[300])])
    result = lexical.update(small_store.data_dir)
    assert (result.full, result.added, result.documents) == (False, 2, 301)
    assert matches(backend, "zyxwvutsrq") == [changed.id]
    assert backend.search(parse_query(f'"{sample_records[300]["title"]}"'), with_facets=False).total >= 1
    assert lexical.update(small_store.data_dir).added == 0  # nothing new: nothing done
    page = backend.search(parse_query("zyxwvutsrq"), with_papers=True)
    assert page.papers[0].title == changed.title  # the record the index returns is the new one


def test_rebuild_swaps_generations_and_removes_the_old(small_store):
    first = lexical.build(small_store.data_dir).folder
    backend = TantivyBackend(small_store.data_dir)
    before = matches(backend, "learning")
    second = lexical.build(small_store.data_dir).folder
    assert first != second and not first.exists() and lexical.current_generation(small_store.data_dir) == second
    assert matches(backend, "learning") == before


def test_readers_never_see_a_half_built_index(small_store):
    lexical.build(small_store.data_dir)
    backend = TantivyBackend(small_store.data_dir)
    expected = backend.search(parse_query(""), with_facets=False).total
    seen: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            backend.refresh(force=True)
            seen.append(backend.search(parse_query(""), with_facets=False).total)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(3):
            lexical.build(small_store.data_dir)
    finally:
        stop.set()
        reader.join()
    assert seen and set(seen) == {expected}


def test_a_failed_build_leaves_the_live_index_alone(small_store, monkeypatch):
    live = lexical.build(small_store.data_dir).folder

    def broken(paper, row, facet_codes, institutions=()):
        raise RuntimeError("disk full")

    monkeypatch.setattr(lexical, "paper_document", broken)
    with pytest.raises(RuntimeError):
        lexical.build(small_store.data_dir)
    assert lexical.current_generation(small_store.data_dir) == live
    assert [path.name for path in lexical.index_root(small_store.data_dir).iterdir()
            if path.name.startswith(".gen")] == []


def test_missing_index_is_a_clear_error(tmp_path):
    with pytest.raises(lexical.IndexMissingError, match="papersift index"):
        TantivyBackend(tmp_path)


def test_an_index_of_another_schema_version_is_refused_then_rebuilt_by_update(small_store):
    old = lexical.build(small_store.data_dir).folder
    meta = lexical.IndexMeta.read(old)
    replace(meta, schema_version=lexical.SCHEMA_VERSION - 1).write(old)
    with pytest.raises(lexical.IndexOutdatedError, match="papersift index"):
        TantivyBackend(small_store.data_dir)
    result = lexical.update(small_store.data_dir)
    assert result.full and result.folder != old
    assert TantivyBackend(small_store.data_dir).search(parse_query("")).total == 300


@pytest.mark.drill
def test_a_full_build_is_one_segment_even_past_the_flush_budget(tmp_path, monkeypatch):
    """Tied scores rank in insertion order only within one segment. The writer flushes a
    segment whenever its memory budget fills, so a build sizes the budget from its paper
    count. Exercised on 30,000 synthetic papers with the budget's floor cut to tantivy's
    minimum (15 MB, which they overflow: the control build shows it)."""
    from pathlib import Path

    from papersift.bench.synthetic import SourceCorpus, synthesize

    sample = Path(__file__).resolve().parents[2] / "src" / "papersift" / "sample_corpus" / "papers.jsonl.gz"
    papers = [(seq, paper_from_dict(record)) for seq, record in
              enumerate(synthesize(SourceCorpus([sample]), 30_000, seed=5), 1)]
    monkeypatch.setattr(lexical, "WRITER_HEAP_BYTES", 15_000_000)

    def segments(folder_name: str, expected: int | None) -> int:
        built = lexical.build_from_papers(tmp_path / folder_name, papers, len(papers), expected=expected)
        return lexical.open_index(tmp_path / folder_name).index.searcher().num_segments if built.documents else 0

    assert segments("unsized", expected=None) > 1  # the floor alone: the writer flushed mid-build
    assert segments("sized", expected=len(papers)) == 1


def generation_modes(folder) -> dict[str, str]:
    files = [path for path in folder.iterdir() if path.is_file() and not path.name.startswith(".tantivy-")]
    assert "meta.json" in {path.name for path in files} and len(files) > 5
    return {path.name: oct(path.stat().st_mode & 0o777) for path in files}


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077], ids=oct)
def test_every_file_of_a_generation_follows_the_umask(small_store, sample_records, mask):
    """tantivy writes meta.json and .managed.json 0600 (its own atomic write); every other file
    follows the umask, so another user who may read the data dir can search it."""
    data_dir = small_store.data_dir
    previous = os.umask(mask)
    try:
        built = generation_modes(lexical.build(data_dir).folder)
        small_store.upsert([paper_from_dict({**sample_records[0], "title": "A changed title"})])
        updated = generation_modes(lexical.update(data_dir).folder)
    finally:
        os.umask(previous)
    for modes in (built, updated):
        assert set(modes.values()) == {oct(0o666 & ~mask)}, modes


def test_tantivy_io_errors_are_raised_as_the_os_error_they_are(tmp_path):
    with pytest.raises(OSError) as raised, lexical.tantivy_os_errors(tmp_path):
        raise ValueError("An IO error occurred: 'No space left on device (os error 28)'")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path)
    with pytest.raises(ValueError, match="schema"), lexical.tantivy_os_errors(tmp_path):
        raise ValueError("a schema problem")
