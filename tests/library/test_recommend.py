"""Recommendations: learned from a tag against "not interested" papers, the library left out,
filters applied, each hit explained by its nearest tagged papers; features are a derived file
a command publishes and serving only reads."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from papersift.index.vectors import write_index
from papersift.library.entries import Library
from papersift.library.features import FEATURES_DIR, FeaturesMissing, build_features, live_features, load_features
from papersift.library.recommend import NothingToLearn, explanation, recommend
from papersift.record import paper_from_dict
from papersift.store import Store


@pytest.fixture(scope="module")
def labelled_dir(labeled_records, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("labelled")
    Store(data_dir).upsert(paper_from_dict(record) for record in labeled_records)
    build_features(data_dir)
    return data_dir


def _topic_ids(labeled_records) -> dict[str, list[str]]:
    topics: dict[str, list[str]] = {}
    for record in labeled_records:
        topics.setdefault(f"{record['area']} · {record['subarea']}", []).append(record["id"])
    return topics


def _library_with(tmp_path, labeled_records, tagged, disliked) -> Library:
    store = Store(tmp_path / "lib")
    store.upsert(paper_from_dict(record) for record in labeled_records)
    library = Library(store)
    library.tag(tagged, "mine")
    if disliked:
        library.rate(disliked, -1)
    return library


def test_features_are_published_as_a_generation_and_replaced_whole(labelled_dir, labeled_records):
    first = live_features(labelled_dir)
    features = load_features(labelled_dir)
    assert first is not None and (first / "tfidf.npz").is_file()
    assert len(features) == len(Store(labelled_dir, readonly=True).read("SELECT id FROM papers"))
    assert features.vectors is None and features.tfidf.shape[0] == len(features)
    build_features(labelled_dir)
    assert live_features(labelled_dir) != first and not first.exists()  # the old generation is debris, removed
    assert [path.name for path in (labelled_dir / FEATURES_DIR).iterdir() if path.name.startswith("gen-")] == [
        live_features(labelled_dir).name]


def test_a_tag_recommends_its_topic_leaves_the_library_out_and_explains(labelled_dir, labeled_records, tmp_path):
    topics = _topic_ids(labeled_records)
    topic, ids = max(topics.items(), key=lambda item: len(item[1]))
    other = next(paper_id for name, members in topics.items() if name != topic for paper_id in members)
    library = _library_with(tmp_path, labeled_records, ids[:10], [other])
    hits, learned = recommend(load_features(labelled_dir), library, "mine", k=20)
    assert learned["positives"] == 10 and learned["not_interested"] == 1 and len(hits) == 20
    returned = {hit.paper_id for hit in hits}
    assert not returned & library.seen()
    topic_of = {paper_id: name for name, members in topics.items() for paper_id in members}
    share = Counter(topic_of[paper_id] == topic for paper_id in returned)[True] / len(returned)
    base_rate = len(ids) / len(labeled_records)
    assert share >= 3 * base_rate, f"{share:.2f} of the hits share the tag's topic; base rate {base_rate:.2f}"
    assert all(hit.because and {paper_id for paper_id, _ in hit.because} <= set(ids[:10]) for hit in hits)
    assert explanation(["A", "B", "C"], "mine") == "like the 3 papers in tag 'mine': A; B; C"


def test_allowed_papers_limit_the_candidates(labelled_dir, labeled_records, tmp_path):
    ids = [record["id"] for record in labeled_records]
    library = _library_with(tmp_path, labeled_records, ids[:5], [])
    allowed = set(ids[100:130])
    hits, _ = recommend(load_features(labelled_dir), library, "mine", k=50, allowed=allowed)
    assert hits and {hit.paper_id for hit in hits} <= allowed and len(hits) == 30


def test_an_empty_tag_and_missing_features_are_named(labelled_dir, labeled_records, tmp_path):
    library = _library_with(tmp_path, labeled_records, [labeled_records[0]["id"]], [])
    with pytest.raises(NothingToLearn, match="tag 'nothing here'"):
        recommend(load_features(labelled_dir), library, "nothing here")
    with pytest.raises(FeaturesMissing, match="papersift library features"):
        load_features(tmp_path / "lib")
    assert not (tmp_path / "lib" / FEATURES_DIR).exists()  # reading never builds


def test_vectors_join_the_keywords_and_explain_the_hits(labelled_dir, labeled_records, tmp_path):
    """Vectors from the vector index (synthetic here: one direction per topic plus noise)."""
    topics = _topic_ids(labeled_records)
    rng = np.random.default_rng(0)
    centres = {name: rng.normal(size=32) for name in topics}
    ids, rows = [], []
    for name, members in topics.items():
        for paper_id in members:
            vector = centres[name] + 0.5 * rng.normal(size=32)
            ids.append(paper_id)
            rows.append(vector / np.linalg.norm(vector))
    write_index(labelled_dir, "multilingual-e5-small", ids, np.array(rows, dtype=np.float32), len(ids), 0)
    features = load_features(labelled_dir)
    assert features.vectors is not None and features.has_vector.all()
    topic, members = max(topics.items(), key=lambda item: len(item[1]))
    library = _library_with(tmp_path, labeled_records, members[:5], [])
    hits, _ = recommend(features, library, "mine", k=10)
    assert hits and all(hit.because[0][1] > 0 for hit in hits)
    topic_of = {paper_id: name for name, group in topics.items() for paper_id in group}
    assert sum(topic_of[hit.paper_id] == topic for hit in hits) >= 8


def test_a_one_paper_tag_ranks_its_embedding_neighbours_before_keyword_look_alikes():
    """Papers 1-3 sit next to paper 0 in the e5 space and share none of its words; papers 4-6
    repeat its words and sit anywhere in e5. The SVM alone mixed the two groups (one positive
    against a background mostly learns its words); the centroid view puts 1-3 first."""
    from papersift.library.features import Features, tfidf_matrix
    from papersift.library.recommend import recommend_rows

    rng = np.random.default_rng(5)
    ids = [f"p{number}" for number in range(300)]
    vectors = rng.normal(size=(300, 32)).astype(np.float32)
    vectors[1:4] = vectors[0] + 0.3 * rng.normal(size=(3, 32))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    words = [f"w{number}" for number in range(600)]
    texts = [" ".join(rng.choice(words, 12)) for _ in ids]
    for number in range(4, 7):
        texts[number] = f"{texts[0]} {texts[number]}"
    features = Features(ids, {paper_id: row for row, paper_id in enumerate(ids)}, tfidf_matrix(texts)[0], vectors,
                        np.ones(300, dtype=bool), "test")
    hits = recommend_rows(features, ["p0"], [], {"p0"}, k=3)
    assert {hit.paper_id for hit in hits} == {"p1", "p2", "p3"}


def test_shared_words_are_a_recommendations_own_reason():
    from papersift.library.recommend import shared_words

    hit = "Sparse Gaussian processes for kernel regression with inducing points"
    tagged = "Kernel methods and Gaussian process regression at scale"
    assert shared_words(hit, tagged) == ["regression", "gaussian", "kernel"]  # longest first
    assert shared_words("the and with", "the and with") == []  # stop words are no reason
