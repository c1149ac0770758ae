from dataclasses import replace

from papersift.record import paper_from_dict
from papersift.store import Store
from papersift.topics.dataset import area_of, labeled_set, labels_fingerprint, load_labeled, load_unlabeled


def test_labeled_papers_are_the_iclr_2024_papers_with_abstracts(corpus_labeled):
    assert len(corpus_labeled) == 1992
    assert {(p.venue, p.year) for p in corpus_labeled.papers} == {("ICLR", 2024)}
    assert all(p.abstract for p in corpus_labeled.papers)
    assert len(set(corpus_labeled.topics)) == 85
    assert len(set(corpus_labeled.areas)) == 8
    for paper, topic, area in zip(corpus_labeled.papers, corpus_labeled.topics, corpus_labeled.areas):
        assert topic == paper.topic and area == paper.area == area_of(topic)


def test_store_split_labeled_and_unlabeled(sample_data_dir, sample_records):
    store = Store(sample_data_dir, readonly=True)
    labeled, unlabeled = load_labeled(store), load_unlabeled(store)
    total = store.count()
    store.close()
    with_area = [r for r in sample_records if r.get("area")]
    assert len(labeled) == sum(1 for r in with_area if r.get("abstract"))
    assert len(unlabeled) == total - len(with_area)
    assert not any(paper.area for _, paper in unlabeled)


def test_fingerprint_follows_labels_and_text(corpus_labeled):
    papers = corpus_labeled.papers[:50]
    base = labels_fingerprint(labeled_set(papers))
    assert labels_fingerprint(labeled_set(list(reversed(papers)))) == base  # order does not matter
    relabeled = [replace(papers[0], subarea=f"{papers[0].subarea} (moved)"), *papers[1:]]
    assert labels_fingerprint(labeled_set(relabeled)) != base
    retitled = [replace(papers[0], title=papers[0].title + " (v2)"), *papers[1:]]
    assert labels_fingerprint(labeled_set(retitled)) != base


def test_area_only_label_keeps_the_area():
    paper = paper_from_dict({"id": "x", "title": "t", "abstract": "a" * 40, "area": "Theory"})
    assert labeled_set([paper]).topics == ["Theory"]
    assert area_of("Deep Learning · Attention Mechanisms") == "Deep Learning"
