import shutil
import sqlite3
from dataclasses import replace

import joblib
import numpy as np
import pytest
from topic_vectors import publish_text_vectors
from typer.testing import CliRunner

from papersift.cli import app
from papersift.index.predictions import PredictionStore
from papersift.record import paper_from_dict
from papersift.store import Store
from papersift.topics.classifier import WORDS_ONLY, ModelConfig
from papersift.topics.dataset import load_labeled, load_unlabeled
from papersift.topics.files import topics_dir
from papersift.topics.predict import predict_all, source_embeddings


@pytest.fixture()
def data_dir(topics_data_dir, tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(topics_data_dir, copy, ignore=shutil.ignore_patterns("topics"))
    with sqlite3.connect(copy / "papers.sqlite3") as conn:  # start without predictions of other tests
        conn.execute("DROP TABLE IF EXISTS predicted_topics")
        conn.execute("DROP TABLE IF EXISTS predicted_topics_meta")
    return copy


def counts(data_dir):
    store = Store(data_dir, readonly=True)
    labeled, unlabeled = load_labeled(store), load_unlabeled(store)
    store.close()
    return labeled, unlabeled


def test_predicts_every_unlabeled_paper_apart_from_source_labels(data_dir):
    labeled, unlabeled = counts(data_dir)
    summary = predict_all(data_dir, WORDS_ONLY)
    assert summary.mode == "full" and summary.trained
    assert summary.predicted == summary.stored_total == len(unlabeled)
    with PredictionStore(data_dir, readonly=True) as predictions:
        stored = {p.paper_id: p for p in predictions.all()}
    assert set(stored) == {paper.id for _, paper in unlabeled}
    assert not set(stored) & {paper.id for paper in labeled.papers}
    known_topics = set(labeled.topics)
    for prediction in stored.values():
        assert prediction.topic in known_topics
        assert 0 < prediction.confidence <= prediction.area_confidence <= 1
        assert prediction.model_version == summary.model_version
    store = Store(data_dir, readonly=True)  # the source columns stay empty
    some_id = next(iter(stored))
    assert store.get(some_id).area is None
    store.close()


def test_rerun_is_up_to_date_and_new_papers_are_predicted_incrementally(data_dir):
    first = predict_all(data_dir, WORDS_ONLY)
    again = predict_all(data_dir, WORDS_ONLY)
    assert again.mode == "up-to-date" and again.predicted == 0 and not again.trained
    store = Store(data_dir)
    store.upsert([paper_from_dict({"id": "NEW-1", "title": "Policy gradient methods for offline reinforcement learning",
                                   "abstract": "We study offline reinforcement learning with policy gradients " * 3})])
    store.close()
    later = predict_all(data_dir, WORDS_ONLY)
    assert later.mode == "incremental" and later.predicted == 1
    assert later.model_version == first.model_version
    with PredictionStore(data_dir, readonly=True) as predictions:
        assert predictions.count() == first.stored_total + 1
        assert predictions.get_many(["NEW-1"])["NEW-1"].area == "Reinforcement Learning"


def test_changed_labels_retrain_and_recompute_everything(data_dir):
    first = predict_all(data_dir, WORDS_ONLY)
    labeled, unlabeled = counts(data_dir)
    store = Store(data_dir)
    moved = labeled.papers[0]
    store.upsert([replace(moved, subarea=f"{moved.subarea} (moved)")])
    newly_labeled = unlabeled[0][1]
    store.upsert([replace(newly_labeled, area="Theory", subarea="Learning Theory")])
    store.close()
    second = predict_all(data_dir, WORDS_ONLY)
    assert second.mode == "full" and second.trained
    assert second.model_version != first.model_version
    assert second.stored_total == first.stored_total - 1  # the newly labeled paper has a source label now
    with PredictionStore(data_dir, readonly=True) as predictions:
        assert newly_labeled.id not in predictions.get_many([newly_labeled.id])
        assert {p.model_version for p in predictions.all()} == {second.model_version}
    assert [path.name for path in topics_dir(data_dir).glob("model-*.joblib")] == [f"model-{second.model_version}.joblib"]


def test_config_change_recomputes_with_embeddings(data_dir):
    words = predict_all(data_dir, WORDS_ONLY)
    combined = predict_all(data_dir, ModelConfig())
    assert combined.mode == "full" and combined.model_version != words.model_version
    assert combined.stored_total == words.stored_total
    model = joblib.load(topics_dir(data_dir) / f"model-{combined.model_version}.joblib")
    assert model.embedding_sources == ("e5", "minilm")
    assert model.embedding_model == "multilingual-e5-small + all-MiniLM-L6-v2 (int8)"
    lsa = next(features for spec, features, *_ in model.classifier._models if spec.view == "lsa")
    _, unlabeled = counts(data_dir)  # the LSA learned its vocabulary from unlabeled papers only
    assert lsa.transformer[0].vocabulary_.keys() <= {
        term for _, paper in unlabeled if paper.has_abstract for term in lsa.transformer[0].build_analyzer()(
            f"{paper.title}. {paper.abstract}")}


def test_missing_vectors_are_reported_not_computed(data_dir):
    store = Store(data_dir)
    store.upsert([paper_from_dict({"id": "NEW-2", "title": "A new paper", "abstract": "About graphs and networks " * 3})])
    store.close()
    result = CliRunner().invoke(app, ["topics", "predict", "--data-dir", str(data_dir)])
    assert result.exit_code != 0
    assert "no multilingual-e5-small vector" in result.stderr and "--words-only" in result.stderr
    publish_text_vectors(data_dir, minilm=False)  # e5 now complete, MiniLM int8 still lacks NEW-2
    result = CliRunner().invoke(app, ["topics", "predict", "--data-dir", str(data_dir)])
    assert result.exit_code != 0
    assert "1 of" in result.stderr and "no all-MiniLM-L6-v2 (int8) vector" in result.stderr
    assert "--embed-missing" in result.stderr
    # (with both sources complete the default model trains and predicts: test_config_change_...)


def test_papers_with_the_same_text_share_a_cached_vector(data_dir):
    _, unlabeled = counts(data_dir)
    twin = replace(unlabeled[0][1], id="TWIN-1")  # same title and abstract, another id
    store = Store(data_dir)
    store.upsert([twin])
    store.close()
    publish_text_vectors(data_dir)
    vectors = source_embeddings(data_dir, [unlabeled[0][1], twin], ("minilm",), compute_missing=False)["minilm"]
    assert np.array_equal(vectors[0], vectors[1]) and np.linalg.norm(vectors[0]) > 0


def test_train_command(data_dir):
    result = CliRunner().invoke(app, ["topics", "train", "--data-dir", str(data_dir), "--words-only", "--json"])
    assert result.exit_code == 0, result.output
    assert '"labeled_papers"' in result.stdout
