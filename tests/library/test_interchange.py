"""Export the library in every format and import it into a fresh data dir: everything
matches, with its tags, notes and marks. Foreign files (a Zotero-like BibTeX, RIS, CSL-JSON)
match by DOI / arXiv id / OpenReview forum / title + year, and each miss is one line."""

from __future__ import annotations

import orjson
import pytest
import rispy

from papersift.ingest.bibtex import parse_bibtex
from papersift.library.entries import Library
from papersift.library.interchange import (
    FORMATS,
    LibraryFormatError,
    detect_format,
    export_library,
    import_library,
)
from papersift.library.matching import identifiers
from papersift.record import paper_from_dict
from papersift.store import Store

ARXIV_PAPER = {"id": "arXiv-2023-2301.00001", "title": "A Paper Found on arXiv", "year": 2023, "venue": "arXiv",
               "authors": ["Ann Lee"], "url": "https://arxiv.org/abs/2301.00001"}


def _corpus(sample_records) -> list[dict]:
    return [*sample_records[:300], ARXIV_PAPER]


@pytest.fixture()
def filled(tmp_path, sample_records) -> Library:
    store = Store(tmp_path / "first")
    store.upsert(paper_from_dict(record) for record in _corpus(sample_records))
    library = Library(store)
    ids = [record["id"] for record in sample_records[:12]]
    library.tag(ids[:8], "diffusion")
    library.tag(ids[4:12], "theory, proofs & bounds")  # a comma and a LaTeX special inside one tag name
    library.rate(ids[:2], 1)
    library.rate(ids[10:11], -1)
    library.set_note(ids[0], "Check Table 2 again; 50% of runs & more #3.")
    library.set_reading(ids[1:3], "to-read")
    return library


def _state(library: Library) -> dict:
    return {entry.paper_id: (entry.tags, entry.rating, entry.note, entry.reading) for entry in library.entries()}


@pytest.mark.parametrize("export_format", FORMATS)
def test_export_then_import_into_a_fresh_data_dir_matches_everything(filled, tmp_path, sample_records, export_format):
    text = export_library(filled, export_format)
    fresh = Store(tmp_path / "fresh")
    fresh.upsert(paper_from_dict(record) for record in reversed(_corpus(sample_records)))  # other seqs
    library = Library(fresh)
    summary = import_library(library, text)
    assert summary.format == export_format and summary.unmatched == []
    assert summary.matched == summary.entries == 12 and summary.by_rule == {"paper id": 12}
    assert set(_state(library)) == set(_state(filled))


@pytest.mark.parametrize("export_format", ["ris", "csl-json", "json"])
def test_list_formats_keep_every_field(filled, tmp_path, sample_records, export_format):
    fresh = Library(Store(tmp_path / "fresh"))
    fresh.store.upsert(paper_from_dict(record) for record in _corpus(sample_records))
    import_library(fresh, export_library(filled, export_format))
    assert _state(fresh) == _state(filled)


def test_bibtex_keeps_notes_marks_and_reading_state(filled, tmp_path, sample_records):
    text = export_library(filled, "bibtex")
    assert parse_bibtex(text).failed_blocks == []
    fresh = Library(Store(tmp_path / "fresh"))
    fresh.store.upsert(paper_from_dict(record) for record in _corpus(sample_records))
    import_library(fresh, text)
    before, after = _state(filled), _state(fresh)
    assert {key: value[1:] for key, value in after.items()} == {key: value[1:] for key, value in before.items()}
    # BibTeX keywords are a comma-separated list: a tag holding a comma comes back as two.
    assert set(after[sample_records[6]["id"]][0]) == {"diffusion", "theory", "proofs & bounds"}


def test_a_foreign_bibtex_matches_by_identifiers_and_title_and_names_each_miss(store, sample_records):
    store.upsert(paper_from_dict(record) for record in _corpus(sample_records))
    library = Library(store)
    forum = next(record for record in sample_records if "openreview.net/forum" in (record.get("url") or ""))
    by_title = sample_records[3]
    text = f"""
@article{{zot1, title={{Something else entirely}}, year={{2023}}, eprint={{2301.00001}}, archivePrefix={{arXiv}}}}
@inproceedings{{zot2, title={{Renamed}}, year={{1999}}, url={{https://openreview.net/forum?id={forum['url'].split('=')[-1]}}},
  keywords={{mine, later}}}}
@inproceedings{{zot3, title={{{by_title['title'].upper()}}}, year={{{by_title['year']}}}, annote={{from Zotero}}}}
@inproceedings{{zot4, title={{A Paper Nobody Wrote}}, year={{2020}}}}
@inproceedings{{zot5, title={{{by_title['title']}}}, year={{1901}}}}
"""
    summary = import_library(library, text, filename="zotero.bib", tag="imported")
    assert summary.matched == 3 and summary.by_rule == {"arxiv": 1, "openreview": 1, "title + year": 1}
    assert len(summary.unmatched) == 2
    assert summary.unmatched[0].startswith("entry zot4 (line 6): no stored paper has its identifiers or the title")
    assert summary.unmatched[1].startswith(f"entry zot5 (line 7): the title matches {by_title['id']} but not the year 1901")
    assert set(library.tagged("imported")) == {ARXIV_PAPER["id"], forum["id"], by_title["id"]}
    assert set(library.entry(forum["id"]).tags) == {"mine", "later", "imported"}
    assert library.entry(by_title["id"]).note == "from Zotero"


def test_foreign_ris_and_csl_json_match_by_doi_url_and_title(store, sample_records):
    doi_paper = {"id": "X-2022-doi", "title": "Paper With a DOI", "year": 2022, "venue": "JMLR", "authors": ["Bo Kim"],
                 "url": "https://doi.org/10.5555/ABC.123"}
    store.upsert(paper_from_dict(record) for record in [*_corpus(sample_records), doi_paper])
    library = Library(store)
    ris = rispy.dumps([{"type_of_reference": "JOUR", "title": "Another title", "doi": "10.5555/abc.123", "year": "2022"},
                       {"type_of_reference": "CONF", "title": sample_records[5]["title"], "year": str(sample_records[5]["year"]),
                        "keywords": ["ris-tag"]},
                       {"type_of_reference": "CONF", "title": "Unknown", "year": "2001"}])
    summary = import_library(library, ris)
    assert summary.format == "ris" and summary.matched == 2 and summary.by_rule == {"doi": 1, "title + year": 1}
    assert summary.unmatched == ["record 3 ('Unknown'): no stored paper has its identifiers or the title 'Unknown' (2001)"]
    csl = orjson.dumps([{"id": "zotero-1", "type": "article", "URL": "https://arxiv.org/pdf/2301.00001v2"},
                        {"id": "zotero-2", "type": "article", "title": "No such paper"}]).decode()
    summary = import_library(library, csl)
    assert summary.matched == 1 and summary.by_rule == {"arxiv": 1}
    assert summary.unmatched == [("item 2 ('zotero-2'): no stored paper has its identifiers or the title "
                                  "'No such paper' (no year)")]
    assert library.tagged("ris-tag") == [sample_records[5]["id"]]


def test_a_dry_run_stores_nothing(filled, tmp_path, sample_records):
    fresh = Library(Store(tmp_path / "fresh"))
    fresh.store.upsert(paper_from_dict(record) for record in _corpus(sample_records))
    assert import_library(fresh, export_library(filled, "json"), dry_run=True).matched == 12
    assert fresh.entries() == []


@pytest.mark.parametrize(("text", "message"), [
    ("hello", "cannot tell the format"),
    ("{\"a\": 1}", "not a papersift library export"),
    ("[1, 2]", "item 1: not a JSON object"),
    ("[{\"title\": ", "not valid JSON"),
])
def test_unreadable_files_are_one_line(store, text, message):
    with pytest.raises(LibraryFormatError, match=message):
        import_library(Library(store), text)


def test_identifiers_found_in_links():
    assert identifiers(["https://openreview.net/pdf?id=Ab-c_1", "arXiv:2301.00001v3", "https://doi.org/10.1145/3.4.",
                        "https://arxiv.org/abs/cs/0112017"]) == {
        "openreview:Ab-c_1", "arxiv:2301.00001", "doi:10.1145/3.4", "arxiv:cs/0112017"}
    assert detect_format("  TY  - JOUR\nER  -\n") == "ris" and detect_format("x", "a.csl.json") == "csl-json"


# Titles as the shared corpus stores them (the sources' TeX kept), each of which papersift's own
# BibTeX export and import used to read back differently: decoded accents, \boldmath, a macro
# glued to a word, an unbalanced brace the export drops.
TEX_TITLES = [
    'Neural Lagrangian Schr\\"{o}dinger Bridge: Diffusion Modeling for Population Dynamics',
    "Over-parameterized Model Optimization with Polyak-{\\L}ojasiewicz Condition",
    "\\proptoSVM for Learning with Label Proportions",
    "\\ell_1,p-Norm Regularization: Error Bounds and Convergence Rate Analysis of First-Order Methods",
    "Model Selection in Gaussian Graphical Models: High-Dimensional Consistency of \\boldmath$\\ell_1$-regularized MLE",
    "Performance analysis for L\\_2 kernel classification",
    "Efficient inference in matrix-variate Gaussian models with \\iid observation noise",
    "Replica-Exchange Nos\\'e-Hoover Dynamics for Bayesian Learning on Large Datasets",
    "\\ensuremathα-Former: Local-Feature-Aware (L-FA) Transformer",
    "Subpolynomial trace reconstruction for random strings \\{and arbitrary deletion probability",
    "Outcome-directed Reinforcement Learning by Uncertainty \\& Temporal Distance-Aware Curriculum Goal Generation",
    "Sparsistency of \\ell_1-Regularized M-Estimators",
    "Learning Additive Exponential Family Graphical Models via $\\ell_{2,1}$-norm Regularized M-Estimation",
    "Part & Clamp: Efficient Structured Output Learning",
]


def _without_ids(text: str, export_format: str) -> str:
    """The export as a reference manager that keeps no papersift id hands it back: matched by title."""
    if export_format == "bibtex":
        return "\n".join(line for line in text.splitlines() if "papersift_id" not in line)
    if export_format == "ris":
        return "\n".join(line for line in text.splitlines() if not line.startswith(("ID  -", "AN  -")))
    items = orjson.loads(text)
    for item in items:
        item.pop("id", None)
        item.get("custom", {}).pop("papersift_id", None)
    return orjson.dumps(items).decode()


@pytest.mark.parametrize("export_format", ["bibtex", "ris", "csl-json"])
def test_titles_with_tex_match_themselves_after_an_export(tmp_path, export_format):
    records = [{"id": f"TEX-{year}", "title": title, "year": year, "venue": "NeurIPS", "authors": ["Ann Lee"]}
               for year, title in enumerate(TEX_TITLES, start=2000)]
    first = Library(Store(tmp_path / "first"))
    first.store.upsert(paper_from_dict(record) for record in records)
    first.tag([record["id"] for record in records], "tex")
    text = _without_ids(export_library(first, export_format), export_format)
    assert "TEX-2000" not in text
    fresh = Library(Store(tmp_path / "fresh"))
    fresh.store.upsert(paper_from_dict(record) for record in reversed(records))
    summary = import_library(fresh, text, filename=f"library.{export_format}")
    assert summary.unmatched == [] and summary.by_rule == {"title + year": len(TEX_TITLES)}
    assert sorted(fresh.tagged("tex")) == sorted(record["id"] for record in records)


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1 << 20])
def test_the_import_budget_counts_entry_starts_across_chunks(chunk_size):
    from papersift.library.interchange import ImportBudget

    text = ("@string{x = {y}}\n@comment{no}\n" + "".join(f"@inproceedings{{k{n},\n title={{A @ sign}}}}\n  @misc ( m{n},)\n"
                                                        for n in range(50)) + "TY  - JOUR\nER  - \n").encode()
    budget = ImportBudget(max_bytes=None)
    for start in range(0, len(text), chunk_size):
        budget.feed(text[start:start + chunk_size])
    assert budget.entries == 101 and budget.bytes == len(text)
    with pytest.raises(LibraryFormatError, match="over 100 entries"):
        limited = ImportBudget(max_entries=100)
        for start in range(0, len(text), chunk_size):
            limited.feed(text[start:start + chunk_size])
    with pytest.raises(LibraryFormatError, match="over the import limit of 10 bytes"):
        ImportBudget(max_bytes=10).feed(b"x" * 11)
