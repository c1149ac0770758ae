"""The library's rows: tags, marks, notes, reading state; bad input named; the rows outlive
index rebuilds and re-ingest because they hold paper ids, not seqs."""

from __future__ import annotations

import sqlite3

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.library.entries import EntryChange, Library, LibraryError
from papersift.library.schema import LIBRARY_SCHEMA, SCHEMA_KEY
from papersift.record import paper_from_dict
from papersift.store import DB_FILE, Store
from write_checks import write_jsonl


@pytest.fixture()
def library(store, sample_records) -> Library:
    store.upsert(paper_from_dict(record) for record in sample_records[:50])
    return Library(store)


def _ids(sample_records, count):
    return [record["id"] for record in sample_records[:count]]


def test_tags_marks_notes_and_reading_state(library, sample_records):
    first, second, third = _ids(sample_records, 3)
    assert library.tag([first, second], "diffusion") == 2
    assert library.tag([first], "diffusion") == 0  # already tagged: nothing new
    library.tag([first], "to cite")
    library.rate([third], -1)
    library.rate([second], 1)
    library.set_note(first, "Read section 3 again.")
    library.set_reading([first], "to-read")
    assert library.tags() == {"diffusion": 2, "to cite": 1}
    assert library.tagged("diffusion") == [first, second]
    assert library.rated(-1) == [third] and library.rated(1) == [second]
    entry = library.entry(first)
    assert entry.tags == ("diffusion", "to cite") and entry.note == "Read section 3 again."
    assert entry.reading == "to-read" and entry.rating == 0 and entry.added_at > 0
    assert {entry.paper_id for entry in library.entries(tag="diffusion")} == {first, second}
    assert [entry.paper_id for entry in library.entries(rating=-1)] == [third]
    assert library.seen() == {first, second, third}

    assert library.untag([first], "diffusion") == 1
    library.set_note(first, "  ")  # blank removes it
    library.set_reading([first], None)
    entry = library.entry(first)
    assert entry.tags == ("to cite",) and entry.note is None and entry.reading is None
    assert library.remove([first]) == 1
    assert library.entry(first) is None and library.tags() == {"diffusion": 1}


@pytest.mark.parametrize(("call", "message"), [
    (lambda lib, ids: lib.tag(["NOPE-1"], "x"), "paper 'NOPE-1': no such paper"),
    (lambda lib, ids: lib.tag(ids, "   "), "a tag cannot be empty"),
    (lambda lib, ids: lib.tag(ids, "x" * 101), "over 100 characters"),
    (lambda lib, ids: lib.rate(ids, 2), "rating must be 1"),
    (lambda lib, ids: lib.set_reading(ids, "later"), "reading state must be one of"),
    (lambda lib, ids: lib.set_note(ids[0], "n" * 20_001), "at most 20,000 characters"),
])
def test_bad_requests_are_named_and_write_nothing(library, sample_records, call, message):
    ids = _ids(sample_records, 2)
    with pytest.raises(LibraryError, match=message):
        call(library, ids)
    assert library.entries() == []


def test_a_tag_of_a_known_and_an_unknown_paper_writes_neither(library, sample_records):
    with pytest.raises(LibraryError):
        library.tag([*_ids(sample_records, 1), "NOPE-2"], "t")
    assert library.tags() == {}


def test_an_alias_id_resolves_to_the_paper_it_was_merged_into(library, sample_records):
    record = dict(sample_records[0], id="ALIAS-OF-FIRST")  # same title, year, venue: merged on ingest
    library.store.upsert([paper_from_dict(record)])
    library.tag(["ALIAS-OF-FIRST"], "merged")
    assert library.tagged("merged") == [sample_records[0]["id"]]


def test_import_changes_merge_in_one_transaction(library, sample_records):
    first, second = _ids(sample_records, 2)
    library.tag([first], "kept")
    assert library.apply([EntryChange(first, tags=("new",), note="imported"),
                          EntryChange(second, rating=1, reading="read", added_at=1_700_000_000.0)]) == 2
    assert library.entry(first).tags == ("kept", "new") and library.entry(first).note == "imported"
    assert library.entry(second).rating == 1 and library.entry(second).added_at == 1_700_000_000.0


def test_each_user_sees_only_their_rows(library, sample_records):
    first, second = _ids(sample_records, 2)
    library.tag([first], "mine")
    other = Library(library.store, user_id="someone-else")
    other.tag([second], "theirs")
    assert library.tags() == {"mine": 1} and other.tags() == {"theirs": 1}
    assert library.seen() == {first}


def test_a_read_only_store_without_library_tables_reads_an_empty_library(store, sample_records, tmp_path):
    store.upsert(paper_from_dict(record) for record in sample_records[:3])
    store.close()
    library = Library(Store(tmp_path / "data", readonly=True))
    assert library.entries() == [] and library.tags() == {} and library.seen() == set()
    with pytest.raises(LibraryError, match="read-only"):
        library.tag(_ids(sample_records, 1), "x")


def test_a_version_3_store_gains_the_library_and_keeps_its_papers(tmp_path, sample_records):
    """The store as papersift wrote it before the library (schema 3, no library tables)."""
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert(paper_from_dict(record) for record in sample_records[:20])
    store.close()
    with sqlite3.connect(data_dir / DB_FILE) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'library%'").fetchall()
    library = Library.open(data_dir)
    assert library.store.count() == 20
    assert library.store.read("SELECT value FROM meta WHERE key=?", (SCHEMA_KEY,))[0][0] == str(LIBRARY_SCHEMA)
    library.tag(_ids(sample_records, 2), "after upgrade")
    library.store.close()
    # Opening again (a second process, say) migrates nothing twice and keeps the rows.
    reopened = Library.open(data_dir)
    assert reopened.tags() == {"after upgrade": 2} and reopened.store.count() == 20


def test_the_migration_runs_again_over_existing_tables(tmp_path, sample_records):
    """A version row lost or hand-edited: the step re-runs on its own tables without harm."""
    library = Library.open(tmp_path / "data")
    library.store.upsert(paper_from_dict(record) for record in sample_records[:2])
    library.tag(_ids(sample_records, 1), "t")
    with library.store.transaction("forget the version") as conn:
        conn.execute("DELETE FROM meta WHERE key=?", (SCHEMA_KEY,))
    assert Library(library.store).tags() == {"t": 1}


def test_the_library_survives_an_index_rebuild_and_a_re_ingest(tmp_path, sample_records):
    data_dir, runner = tmp_path / "data", CliRunner()
    records = sample_records[:40]
    source = write_jsonl(tmp_path / "papers.jsonl", records)
    assert runner.invoke(app, ["ingest", str(source), "--data-dir", str(data_dir)]).exit_code == 0
    assert runner.invoke(app, ["index", "--data-dir", str(data_dir)]).exit_code == 0
    library = Library.open(data_dir)
    ids = [record["id"] for record in records[:5]]
    library.tag(ids, "kept")
    library.set_note(ids[0], "a note")
    library.rate(ids[1:2], -1)
    seqs_before = dict(library.store.read("SELECT id, seq FROM papers"))
    library.store.close()

    assert runner.invoke(app, ["index", "--rebuild", "--data-dir", str(data_dir)]).exit_code == 0
    changed = [dict(record, abstract=(record.get("abstract") or "") + " Revised.") for record in records]
    write_jsonl(source, changed)  # every paper changes: each gets a new seq
    result = runner.invoke(app, ["ingest", str(source), "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output

    library = Library.open(data_dir)
    seqs_after = dict(library.store.read("SELECT id, seq FROM papers"))
    assert all(seqs_after[paper_id] != seqs_before[paper_id] for paper_id in ids)
    assert sorted(library.tagged("kept")) == sorted(ids)
    assert library.entry(ids[0]).note == "a note" and library.rated(-1) == ids[1:2]
    assert set(library.store.get_many(ids)) == set(ids)


def test_tags_are_nfc_and_plain_text(library, sample_records):
    """A tag typed decomposed (e + U+0301) is the same tag as typed composed; NUL, BEL, a
    right-to-left override and zero-width characters are refused with one line and store nothing."""
    first, second = _ids(sample_records, 2)
    library.tag([first], "caf\u00e9")
    library.tag([second], "cafe\u0301")
    assert library.tags() == {"caf\u00e9": 2}
    assert library.tagged("cafe\u0301") == [first, second]
    for bad, code in (("a\x00b", "0000"), ("bell\x07", "0007"), ("evil\u202etxt.exe", "202E"),
                      ("zero\u200bwidth", "200B"), ("\ufeffbom", "FEFF"), ("joined\u200dtag", "200D")):
        with pytest.raises(LibraryError, match=f"U\\+{code}"):
            library.tag([first], bad)
        with pytest.raises(LibraryError, match=f"U\\+{code}"):
            library.apply([EntryChange(first, tags=(bad,))])
    library.tag([first], "line\r\nbreak")  # line breaks are whitespace: one line, one space
    assert library.tags() == {"caf\u00e9": 2, "line break": 1}


def test_a_tag_stored_before_tags_were_checked_can_still_be_removed(library, sample_records):
    first = _ids(sample_records, 1)[0]
    library.tag([first], "kept")
    with library.store.transaction("a tag stored by an older papersift") as conn:
        conn.execute("INSERT INTO library_tags (user_id, tag, paper_id, added_at) VALUES (?, ?, ?, 0)",
                     (library.user_id, "old\u202etag", first))
    assert library.tagged("old\u202etag") == [first]
    assert library.untag([first], "old\u202etag") == 1
    assert library.tags() == {"kept": 1}
