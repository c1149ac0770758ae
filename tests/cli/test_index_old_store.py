"""A data dir written by an older papersift (schema 1: no author rows, citations or code links)
is read as it is by read-only openers, and `papersift index` on it works (it failed with
IndexError: the term lexicon read the papers through the new columns)."""

from __future__ import annotations

import sqlite3

import orjson
from typer.testing import CliRunner

from papersift.cli import app
from papersift.store import Store

# The papers table as papersift 0.1 (schema version 1) created it.
SCHEMA_1_PAPERS = """CREATE TABLE papers (
    id TEXT PRIMARY KEY, seq INTEGER NOT NULL, dedupe_key TEXT NOT NULL, content_hash TEXT NOT NULL,
    title TEXT NOT NULL, authors TEXT NOT NULL, abstract TEXT, venue TEXT, year INTEGER, area TEXT,
    subarea TEXT, keywords TEXT NOT NULL, url TEXT, pdf TEXT, status TEXT, track TEXT, tldr TEXT, source TEXT)"""
SCHEMA_1_REST = [
    "CREATE TABLE source_records (record_id TEXT PRIMARY KEY, paper_id TEXT NOT NULL, content_hash TEXT NOT NULL)",
    ("CREATE TABLE ingest_runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, started_at REAL NOT NULL, finished_at REAL,"
    " paths TEXT NOT NULL, status TEXT NOT NULL, summary TEXT)"),
    ("CREATE TABLE ingest_errors (run_id INTEGER NOT NULL, path TEXT NOT NULL, location TEXT NOT NULL, record_id TEXT,"
    " problem TEXT NOT NULL)"),
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
]


def schema_1_store(data_dir, count: int) -> None:
    data_dir.mkdir()
    conn = sqlite3.connect(data_dir / "papers.sqlite3", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    for statement in [SCHEMA_1_PAPERS, *SCHEMA_1_REST]:
        conn.execute(statement)
    for number in range(count):
        conn.execute("INSERT INTO papers (id, seq, dedupe_key, content_hash, title, authors, abstract, venue, year,"
                     " keywords) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (f"OLD-{number}", number + 1, f"old {number}", "h", f"Weakly supervised learning part {number}",
                      orjson.dumps(["Ann Lee"]).decode(), "Weakly supervised learning of labels from noisy sources.",
                      "ICML", 2020, "[]"))
    conn.execute("PRAGMA user_version=1")
    conn.close()


def test_a_schema_1_store_is_read_as_it_is(tmp_path):
    schema_1_store(tmp_path / "data", 3)
    papers = [paper for _, paper in Store(tmp_path / "data", readonly=True).iter_papers()]
    assert [paper.id for paper in papers] == ["OLD-0", "OLD-1", "OLD-2"]
    assert papers[0].code_url is None and papers[0].author_ids == () and papers[0].authors == ("Ann Lee",)


def test_index_on_a_schema_1_store(tmp_path):
    schema_1_store(tmp_path / "data", 30)
    result = CliRunner().invoke(app, ["index", "--data-dir", str(tmp_path / "data"), "--json"])
    assert result.exit_code == 0, result.output
    found = CliRunner().invoke(app, ["search", "weakly supervised", "--mode", "keyword", "--json",
                                     "--data-dir", str(tmp_path / "data")])
    assert found.exit_code == 0 and orjson.loads(found.stdout)["total"] == 30


def test_index_migrates_an_old_store_before_reading_its_code_links(tmp_path):
    schema_1_store(tmp_path / "data", 4)
    conn = sqlite3.connect(tmp_path / "data" / "papers.sqlite3", isolation_level=None)
    conn.execute("UPDATE papers SET abstract = abstract || ' Code: https://github.com/ann/weak.' WHERE id = 'OLD-2'")
    conn.close()
    assert CliRunner().invoke(app, ["index", "--data-dir", str(tmp_path / "data")]).exit_code == 0
    found = CliRunner().invoke(app, ["search", "has:code", "--mode", "keyword", "--json", "--data-dir", str(tmp_path / "data")])
    assert found.exit_code == 0, found.output
    assert [hit["paper"]["id"] for hit in orjson.loads(found.stdout)["hits"]] == ["OLD-2"]
