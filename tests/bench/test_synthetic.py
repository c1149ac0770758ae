"""papersift bench synthesize: valid, unique, deterministic records whose vocabulary keeps growing."""

from __future__ import annotations

import gzip
import hashlib

import orjson
from tests.conftest import SAMPLE_CORPUS
from typer.testing import CliRunner

from papersift.bench.synthetic import HeapsFit, SourceCorpus, VocabularyCurve, synthesize, write_corpus
from papersift.cli import app
from papersift.ingest.base import SourceRecord
from papersift.ingest.pipeline import IngestError, validate

SAMPLE, TITLE_ONLY = SAMPLE_CORPUS / "papers.jsonl.gz", SAMPLE_CORPUS / "papers_title_only.jsonl.gz"


def _records(path):
    with gzip.open(path, "rb") as handle:
        return [orjson.loads(line) for line in handle]


def test_heaps_fit_recovers_the_exponent_of_an_exact_curve():
    fit = HeapsFit.of([(n, round(30 * n ** 0.55)) for n in (10**3, 10**4, 10**5, 10**6)])
    assert abs(fit.beta - 0.55) < 0.005 and abs(fit.k - 30) / 30 < 0.05


def test_every_record_passes_the_ingest_validator_and_ids_are_unique(tmp_path):
    out = tmp_path / "synthetic.jsonl.gz"
    summary = write_corpus([SAMPLE, TITLE_ONLY], out, 3000, seed=7)
    records = _records(out)
    assert summary["papers"] == len(records) == 3000
    assert len({record["id"] for record in records}) == 3000
    for number, record in enumerate(records):
        paper = validate(SourceRecord(str(out), f"line {number + 1}", data=record))
        assert not isinstance(paper, IngestError), paper
    # title-only papers at about the source's share (216 of 2,212), authors and venues present
    title_only = sum(record["abstract"] is None for record in records)
    assert 0.04 < title_only / 3000 < 0.16
    assert all(record["venue"] and record["year"] for record in records)
    assert sum(bool(record["authors"]) for record in records) > 2900


def test_same_seed_same_bytes_other_seed_other_papers(tmp_path):
    first, second, other = (tmp_path / name for name in ("a.jsonl.gz", "b.jsonl.gz", "c.jsonl.gz"))
    write_corpus([SAMPLE], first, 500, seed=3)
    write_corpus([SAMPLE], second, 500, seed=3)
    write_corpus([SAMPLE], other, 500, seed=4)
    digest = [hashlib.sha256(path.read_bytes()).hexdigest() for path in (first, second, other)]
    assert digest[0] == digest[1] != digest[2]


def test_vocabulary_keeps_growing_past_the_source_on_its_heaps_curve():
    source = SourceCorpus([SAMPLE], beta=0.55)
    curve = VocabularyCurve()
    for record in synthesize(source, 12_000, seed=1):  # ~6 times the source's text
        curve.add(f"{record['title']} {record['abstract'] or ''}")
    assert curve.tokens > 5 * source.tokens
    # far more distinct terms than the source has: recombining real sentences alone would stop there
    assert len(curve.seen) > 1.5 * len(source.vocabulary)
    late = curve.fit(min_tokens=2 * source.tokens)  # the part past the source, where minting sets the pace
    assert 0.45 < late.beta < 0.65, late.beta


def test_cli_writes_the_file_and_reports_the_fit(tmp_path):
    out = tmp_path / "cli.jsonl.gz"
    result = CliRunner().invoke(app, ["bench", "synthesize", "--papers", "200", "--out", str(out), "--seed", "2",
                                      "--source", str(SAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert summary["papers"] == 200 and len(_records(out)) == 200 and "heaps_beta" in summary
    assert not (tmp_path / "cli.jsonl.gz.partial").exists()


def test_cli_names_a_missing_source():
    result = CliRunner().invoke(app, ["bench", "synthesize", "--papers", "5", "--out", "/tmp/x.jsonl",
                                      "--source", "/nonexistent/corpus.jsonl"])
    assert result.exit_code == 1 and "no such file: /nonexistent/corpus.jsonl" in result.output


def test_ingest_keeps_every_paper_though_the_source_has_fewer_titles(tmp_path):
    """The store merges papers of one venue, year and normalized title; titles drawn unchanged
    from 2,212 real ones merged a quarter of a 1 M file. Varied titles keep them apart."""
    from papersift.ingest.pipeline import ingest_paths
    from papersift.store import Store

    out = tmp_path / "many.jsonl.gz"
    write_corpus([SAMPLE, TITLE_ONLY], out, 6000, seed=9)
    summary = ingest_paths(Store(tmp_path / "data"), [out])
    assert summary.counts.added >= 5990 and summary.rejected == 0
