"""BibTeX: real PMLR / NeurIPS / OpenReview entries (from the paperlists `bibtex` field) and bad entries."""

from __future__ import annotations

from tests.ingest.conftest import FIXTURES, ingest_into

from papersift.ingest.bibtex import read_bibtex
from papersift.ingest.pipeline import IngestError, validate
from papersift.record import make_paper_id

BIB = FIXTURES / "bibtex" / "papers.bib"


def _papers_by_key():
    """({BibTeX key: Paper}, [IngestError]) for the fixture file."""
    papers, errors = {}, []
    for record in read_bibtex(BIB):
        result = validate(record)
        if isinstance(result, IngestError):
            errors.append(result)
        else:
            papers[record.location.split()[1]] = result
    return papers, errors


def test_entries_map_to_the_listing_values():
    papers, _ = _papers_by_key()
    colm = papers["hu2024instructav"]  # title has braces: Instruct{AV}
    assert colm.id == "COLM-2024-0UK8c2kg7c"  # the OpenReview forum id, as the COLM listing uses
    assert colm.title == "InstructAV: Instruction Fine-tuning Large Language Models for Authorship Verification"
    assert colm.authors == ("Yujia Hu", "Zhiqiang Hu", "Chun Wei Seah", "Roy Ka-Wei Lee")
    assert (colm.venue, colm.year, colm.pdf) == ("COLM", 2024, "https://openreview.net/pdf?id=0UK8c2kg7c")

    pmlr = papers["pmlr-v108-mihelich20a"]  # 'Last, First and ...' authors, PMLR fields
    assert pmlr.authors == ("Martin Mihelich", "Charles Dognin", "Yan Shu", "Michael Blot")
    assert (pmlr.venue, pmlr.year) == ("AISTATS", 2020)
    assert pmlr.url == "https://proceedings.mlr.press/v108/mihelich20a.html"
    assert pmlr.pdf == "http://proceedings.mlr.press/v108/mihelich20a/mihelich20a.pdf"
    assert pmlr.abstract.startswith("Bagging can significantly improve")
    assert pmlr.id == make_paper_id("AISTATS", 2020, pmlr.title)

    nips = papers["NIPS1990_ad13a2a0"]  # NeurIPS puts the PDF in `url`
    assert (nips.venue, nips.url) == ("NeurIPS", None)
    assert nips.pdf.endswith("ad13a2a07ca4b7642959dc0c4c740ab6-Paper.pdf")

    uai = papers["pmlr-v180-li22g"]  # math stays LaTeX
    assert uai.title == "$\\ell_{∞}$-Bounds of the MLE in the BTL Model under General Comparison Graphs"
    assert uai.venue == "UAI"


def test_latex_accents_and_braces_are_decoded_outside_math():
    papers, _ = _papers_by_key()
    paper = papers["lovasz2031accents"]
    assert paper.title == "On Gaussian Processes for Bayesian Optimization & Naïve Priors"
    assert paper.authors == ("László Lovász", "Jörg Müller", "Ana Pérez")
    assert paper.keywords == ("Gaussian processes", "Bayesian optimization")
    assert paper.venue == "Journal of Machine Learning Research"
    assert paper.id.startswith("PAPER-2021-")  # journals do not make id prefixes


def test_bad_entries_are_reported_with_their_line_and_the_rest_is_read():
    papers, errors = _papers_by_key()
    problems = {error.location: (error.path, error.problem) for error in errors}
    assert problems == {
        "line 70": (str(BIB), "unparsable BibTeX: Expected a `=` after entry key, but found `@inproceedings`."),
        "entry notitle2020 (line 65)": (str(BIB), "missing required field 'title'"),
        "entry badyear2020 (line 81)": (str(BIB), "field 'year' is 3020, outside 1900..2100"),
    }
    assert "afterbroken2019" in papers  # the entry after the broken one is recovered
    assert papers["afterbroken2019"].venue == "ICML"


def test_bibtex_merges_with_the_listing_it_came_from(ml_papers, tmp_path):
    """The .bib entries are the same papers as the listings: no paper is doubled."""
    listings = [ml_papers / "raw" / "paperlists" / name for name in (
        "colm/colm2024.json.gz", "aistats/aistats2020.json.gz", "uai/uai2022.json.gz")]
    before, _ = ingest_into(tmp_path / "data", listings)
    after, summary = ingest_into(tmp_path / "data", [BIB])
    added = set(after) - set(before)
    titles = sorted(after[paper_id].title for paper_id in added)
    # Only the papers that no listing has are new; COLM merged by id, PMLR entries by title + year + venue.
    assert titles == ["A B-P ANN Commodity Trader", "On Gaussian Processes for Bayesian Optimization & Naïve Priors",
                      "Recovered After a Broken Entry"]
    assert summary.counts.merged == 2
    assert summary.rejected == 3
