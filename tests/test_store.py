from dataclasses import replace

from papersift.record import paper_from_dict
from papersift.store import Store


def test_upsert_is_idempotent_and_counts(store, sample_records):
    papers = [paper_from_dict(record) for record in sample_records[:100]]
    first = store.upsert(papers)
    second = store.upsert(papers)
    assert (first.added, second.unchanged, second.changed) == (100, 100, 0)
    assert store.count() == 100


def test_duplicate_by_title_year_venue_is_merged(store, sample_records):
    paper = paper_from_dict(sample_records[0])
    twin = replace(paper, id=paper.id + "-other-source", abstract=None, url="https://example.org/x")
    store.upsert([paper])
    counts = store.upsert([twin])
    assert counts.merged == 1 and store.count() == 1
    merged = store.get(twin.id)  # the alias resolves to the stored paper
    assert merged.id == paper.id and merged.abstract == paper.abstract
    assert merged.url == paper.url  # the stored paper's own value wins


def test_changed_record_updates_and_bumps_seq(store, sample_records):
    paper = paper_from_dict(sample_records[0])
    store.upsert([paper])
    seq_before = store.max_seq()
    counts = store.upsert([replace(paper, title=paper.title + " (revised)")])
    assert counts.updated == 1
    assert store.get(paper.id).title.endswith("(revised)")
    assert [p.id for _, p in store.iter_papers(since_seq=seq_before)] == [paper.id]


def test_a_read_only_store_opens_under_a_path_with_uri_characters(tmp_path, sample_records):
    data_dir = tmp_path / "papers #1 ?draft% 100"
    Store(data_dir).upsert([paper_from_dict(sample_records[0])])
    assert Store(data_dir, readonly=True).count() == 1
