"""Schema 3: the raw listings' authors ids, affiliations, citations, code links and
not-accepted submissions reach the store; a version-2 store migrates keeping every paper."""

from __future__ import annotations

import gzip
import sqlite3

import orjson
from tests.ingest.conftest import ingest_into, write_jsonl

from papersift.ingest.pipeline import ingest_paths
from papersift.record import paper_from_dict
from papersift.store import INDEXES, TABLES, Store


def _raw(ml_papers, listing):
    path = ml_papers / "raw" / "paperlists" / listing
    return path, orjson.loads(gzip.decompress(path.read_bytes()))


def test_listing_fields_reach_paper_and_author_rows(ml_papers, tmp_path):
    path, rows = _raw(ml_papers, "colm/colm2024.json.gz")
    papers, _ = ingest_into(tmp_path / "data", [path])
    row = next(row for row in rows if row["authorids"].count("~") >= 2 and ";" in row["aff"])
    paper = papers[f"COLM-2024-{row['id']}"]
    assert list(paper.author_ids) == row["authorids"].split(";")
    assert list(paper.affiliations) == [part.strip() for part in row["aff"].split(";")]
    assert paper.citations == int(row["gs_citation"]) and paper.citations_as_of == "2026-02-23"
    store = Store(tmp_path / "data")
    authors = store.read("SELECT position, name, openreview_id, affiliation FROM paper_authors WHERE paper_id=?"
                         " ORDER BY position", (paper.id,))
    assert [(r["name"], r["openreview_id"]) for r in authors] == list(zip(paper.authors, paper.author_ids))
    assert [r["affiliation"] or "" for r in authors] == list(paper.affiliations)


def test_missing_citations_stay_missing_and_github_field_becomes_code_url(ml_papers, tmp_path):
    path, rows = _raw(ml_papers, "aistats/aistats2025.json.gz")
    papers, _ = ingest_into(tmp_path / "aistats", [path])
    unknown = [f"AISTATS-2025-{row['id']}" for row in rows if row["gs_citation"] in (-1, "-1", "")]
    assert unknown and all(papers[pid].citations is None and papers[pid].citations_as_of is None for pid in unknown)
    path, rows = _raw(ml_papers, "iclr/iclr2018.json.gz")
    papers, _ = ingest_into(tmp_path / "data", [path])
    accepted = {f"ICLR-2018-{row['id']}": row for row in rows if row["status"] not in ("Reject", "Withdraw", "Active")}
    with_code = [pid for pid, row in accepted.items() if "github.com" in row["github"]]
    assert with_code and all(papers[pid].code_url.startswith("https://github.com/") for pid in with_code)


def test_rejected_and_withdrawn_go_to_submissions_not_papers(ml_papers, tmp_path):
    path, _ = _raw(ml_papers, "iclr/iclr2018.json.gz")
    ingest_into(tmp_path / "data", [path])
    store = Store(tmp_path / "data")
    counts = {r["status"]: r["n"] for r in store.read("SELECT status, COUNT(*) n FROM submissions GROUP BY status")}
    assert counts == {"Reject": 496, "Withdraw": 69, "Active": 3}
    assert store.read("SELECT COUNT(*) FROM papers p JOIN submissions s ON s.id = p.id")[0][0] == 0
    ingest_paths(store, [path])  # a re-run adds no second copy
    assert store.read("SELECT COUNT(*) FROM submissions")[0][0] == 568


def test_reingest_of_raw_list_enriches_normalized_papers_without_duplicates(ml_papers, normalized_by_source, tmp_path):
    path, _ = _raw(ml_papers, "colm/colm2025.json.gz")
    records = normalized_by_source["paperlists:colm/colm2025.json"]
    store = Store(tmp_path / "data")
    ingest_paths(store, [write_jsonl(tmp_path / "corpus.jsonl", records)])
    assert store.count() == len(records)
    ingest_paths(store, [path])
    assert store.count() == len(records)
    enriched = store.read("SELECT COUNT(*) FROM papers WHERE author_ids != '[]'")[0][0]
    assert enriched > 0.9 * len(records)
    assert store.read("SELECT COUNT(*) FROM paper_authors WHERE openreview_id IS NOT NULL")[0][0] > len(records)


def _v2_store(data_dir, records):
    """A store as papersift wrote it at schema version 2 (its DDL, its columns)."""
    data_dir.mkdir()
    conn = sqlite3.connect(data_dir / "papers.sqlite3", isolation_level=None)
    for statement in (TABLES + INDEXES).split(";"):
        if statement.strip():
            conn.execute(statement)
    for seq, record in enumerate(records, 1):
        conn.execute(
            "INSERT INTO papers (id, seq, dedupe_key, content_hash, title, authors, abstract, venue, year, keywords)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (record["id"], seq, record["id"], "h", record["title"], orjson.dumps(record["authors"]).decode(),
             record["abstract"], record["venue"], record["year"], "[]"))
    conn.execute("PRAGMA user_version=2")
    conn.close()


def test_version_2_store_migrates_keeping_every_paper(tmp_path):
    records = [{"id": f"P{n}", "title": f"Paper {n}", "authors": ["Ann Lee", f"Bo Kim {n}"], "venue": "ICML",
                "year": 2020, "abstract": f"We release code at https://github.com/ann/p{n}. More text follows."}
               for n in range(50)]
    _v2_store(tmp_path / "data", records)
    store = Store(tmp_path / "data")
    assert store.read("PRAGMA user_version")[0][0] == 3
    papers = {paper.id: paper for _, paper in store.iter_papers()}
    assert sorted(papers) == sorted(record["id"] for record in records)
    assert papers["P7"].authors == ("Ann Lee", "Bo Kim 7") and papers["P7"].code_url == "https://github.com/ann/p7"
    assert papers["P7"].citations is None and papers["P7"].author_ids == ()
    assert store.read("SELECT COUNT(*) FROM paper_authors")[0][0] == 100
    assert store.read("SELECT COUNT(*) FROM paper_authors WHERE name_key='ann lee'")[0][0] == 50
    store.close()
    assert Store(tmp_path / "data").count() == 50  # opening again is a no-op


def test_migration_to_3_can_run_again_without_doubling(tmp_path):
    """A store whose version says 2 but already has the schema-3 columns and rows (an
    interrupted upgrade elsewhere, a hand-set user_version) upgrades without errors or doubles."""
    store = Store(tmp_path / "data")
    store.upsert([paper_from_dict({"id": "P1", "title": "A paper", "authors": ["Ann Lee", "Bo Kim"]})])
    store.close()
    conn = sqlite3.connect(tmp_path / "data" / "papers.sqlite3", isolation_level=None)
    conn.execute("PRAGMA user_version=2")
    conn.close()
    store = Store(tmp_path / "data")
    assert store.read("PRAGMA user_version")[0][0] == 3
    assert store.read("SELECT COUNT(*) FROM paper_authors")[0][0] == 2 and store.count() == 1
