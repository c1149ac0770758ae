"""airas raw files ingest to the normalized corpus's papers, duplicates merged the same way."""

from __future__ import annotations

import gzip
from collections import Counter

import orjson
import pytest
from tests.ingest.conftest import ingest_into, write_jsonl

from papersift.ingest.airas import read_airas

# ICLR 2024 has the Area->Subarea topics and repeated ids; ICML 2022 lists every paper twice.
FILES = ["iclr/2024.json.gz", "icml/2022.json.gz"]


@pytest.mark.parametrize("name", FILES)
def test_raw_file_matches_normalized_corpus(name, ml_papers, normalized_by_source, tmp_path):
    raw_path = ml_papers / "raw" / "airas-papers-db" / "data" / name
    source = f"airas-papers-db:data/{name.removesuffix('.gz')}"
    raw_papers, summary = ingest_into(tmp_path / "raw", [raw_path])
    reference_file = write_jsonl(tmp_path / "reference.jsonl", normalized_by_source[source])
    reference_papers, _ = ingest_into(tmp_path / "reference", [reference_file])

    assert summary.rejected == 0
    assert raw_papers.keys() == reference_papers.keys()
    assert [pid for pid in raw_papers if raw_papers[pid] != reference_papers[pid]] == []


def test_duplicates_inside_a_file_are_merged_first_row_wins(ml_papers, tmp_path):
    raw_path = ml_papers / "raw" / "airas-papers-db" / "data" / "iclr" / "2024.json.gz"
    rows = orjson.loads(gzip.decompress(raw_path.read_bytes()))
    repeated = [paper_id for paper_id, count in Counter(row["id"] for row in rows).items() if count > 1]
    papers, _summary = ingest_into(tmp_path / "data", [raw_path])
    assert repeated and len(papers) < len(rows)
    # 'Vision Transformers Need Registers' is listed first without a topic, later with one:
    # the first row's fields stay, the later row fills the empty area/subarea.
    registers = papers["ICLR-2024-0d8080853a54f8985276b0130266a657"]
    assert (registers.title, registers.area, registers.subarea) == (
        "Vision Transformers Need Registers", "Deep Learning", "Attention Mechanisms")


def test_second_run_of_a_file_with_duplicates_changes_nothing(ml_papers, tmp_path):
    raw_path = ml_papers / "raw" / "airas-papers-db" / "data" / "icml" / "2022.json.gz"
    first, _ = ingest_into(tmp_path / "data", [raw_path])
    second, summary = ingest_into(tmp_path / "data", [raw_path])
    assert second == first
    assert (summary.counts.added, summary.counts.updated, summary.counts.merged) == (0, 0, 0)


def test_topic_split_and_urls(tmp_path):
    path = tmp_path / "neurips" / "2020.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps([{
        "id": "ec79d4bed810ed64267d169b0d37373e", "title": "A Limitation of the PAC-Bayes Framework",
        "authors": ["Roi Livni", "Shay Moran"], "abstract": None, "topic": "Theory->Learning Theory",
        "conference": "neurips", "year": 2020,
        "paper_url": "https://proceedings.neurips.cc//paper_files/paper/2020/hash/ec79d4bed810ed64267d169b0d37373e-Abstract.html",
    }]))
    (record,) = list(read_airas(path))
    assert record.data["id"] == "NeurIPS-2020-ec79d4bed810ed64267d169b0d37373e"
    assert (record.data["area"], record.data["subarea"]) == ("Theory", "Learning Theory")
    assert record.data["url"] == "https://proceedings.neurips.cc/paper_files/paper/2020/hash/ec79d4bed810ed64267d169b0d37373e-Abstract.html"
    assert record.data["pdf"] == "https://proceedings.neurips.cc/paper_files/paper/2020/file/ec79d4bed810ed64267d169b0d37373e-Paper.pdf"
    assert record.data["source"] == "airas-papers-db:data/neurips/2020.json"
