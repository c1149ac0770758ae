"""RIS and CSL-JSON ingest (ingest/citations.py): papersift's own exports ingested into a fresh
store give back the same papers (ids, titles, author order, year, venue); exports of other
reference managers get ids the way BibTeX entries do; broken items are named."""

from __future__ import annotations

import orjson
import pytest

from papersift.export import to_csl_json, to_ris
from papersift.ingest.formats import detect_format
from papersift.ingest.pipeline import ingest_paths
from papersift.record import paper_from_dict
from papersift.store import Store


@pytest.fixture(scope="module")
def papers(sample_records):
    return [paper_from_dict(record) for record in sample_records[::5]]


def same_fields(paper):
    return paper.id, paper.title, list(paper.authors), paper.year, paper.venue


@pytest.mark.parametrize(("suffix", "write"), [(".ris", to_ris), (".json", to_csl_json)])
def test_an_export_ingested_again_gives_the_same_papers(papers, tmp_path, suffix, write):
    exported = tmp_path / f"export{suffix}"
    exported.write_text(write(papers), encoding="utf-8")
    assert detect_format(exported) == {".ris": "ris", ".json": "csl-json"}[suffix]
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, [exported])
    assert summary.errors == [] and summary.counts.added == len(papers)
    assert sorted(same_fields(store.get(paper.id)) for paper in papers) == sorted(map(same_fields, papers))


def test_a_zotero_ris_export_gets_ids_venues_and_names_in_order(tmp_path):
    exported = tmp_path / "zotero.txt"  # no telling suffix: the RIS is sniffed
    exported.write_text(
        "TY  - CONF\nTI  - Attention Is All You Need\nAU  - Vaswani, Ashish\nAU  - Shazeer, Noam\n"
        "T2  - Advances in Neural Information Processing Systems 30\nPY  - 2017\n"
        "UR  - https://openreview.net/forum?id=abc123XYZ\nER  - \n\n"
        "TY  - JOUR\nTI  - A journal paper\nAU  - Doe, Jane\nJO  - Journal of Tests\nPY  - 2020/05/01\nER  - \n",
        encoding="utf-8")
    assert detect_format(exported) == "ris"
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, [exported])
    assert summary.errors == [] and summary.counts.added == 2
    attention = store.get("NeurIPS-2017-abc123XYZ")
    assert attention is not None and attention.authors == ("Ashish Vaswani", "Noam Shazeer")
    journal = next(paper for _, paper in store.iter_papers() if paper.title == "A journal paper")
    assert (journal.venue, journal.year, journal.authors) == ("Journal of Tests", 2020, ("Jane Doe",))


def test_a_broken_csl_item_is_named_and_the_good_ones_are_kept(tmp_path):
    exported = tmp_path / "items.json"
    exported.write_bytes(orjson.dumps([
        {"id": "k1", "type": "paper-conference", "title": "Kept", "author": [{"family": "Lovelace", "given": "Ada"}],
         "issued": {"date-parts": [[2021]]}, "container-title": "ICML"},
        "not an item",
        {"id": "k3", "type": "article", "author": [{"family": "Nobody"}]},  # no title
    ]))
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, [exported])
    assert summary.counts.added == 1
    assert [str(error).split(": ", 1)[0] for error in summary.errors] == [f"{exported}:item 2", f"{exported}:item 3"]
    assert "not a CSL-JSON item" in str(summary.errors[0])
    _, kept = next(iter(store.iter_papers()))
    assert (kept.title, kept.venue, kept.year, kept.authors) == ("Kept", "ICML", 2021, ("Ada Lovelace",))
