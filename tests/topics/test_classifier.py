import numpy as np
import pytest

from papersift.topics.classifier import WORDS_ONLY, ModelConfig, TopicClassifier, ViewSpec
from papersift.topics.dataset import area_of
from papersift.topics.features import TopicInputs

from topic_vectors import text_vectors


@pytest.fixture(scope="module")
def split(corpus_labeled):
    train, test = corpus_labeled.subset(range(0, 600)), corpus_labeled.subset(range(600, 800))
    return train, test


def test_hierarchy_is_consistent_and_probabilities_sum_to_one(split):
    train, test = split
    model = TopicClassifier(WORDS_ONLY).fit(TopicInputs.from_papers(train.papers), train.topics)
    ranking = model.rank(TopicInputs.from_papers(test.papers))
    assert np.allclose(ranking.area_probs.sum(axis=1), 1.0)
    assert np.allclose(ranking.topic_scores.sum(axis=1), 1.0)
    top_area = ranking.top_areas(1)[:, 0]
    top_topic = ranking.top_topics(3)
    for row in range(len(test)):
        first = ranking.topic_classes[top_topic[row, 0]]
        assert area_of(first) == ranking.area_classes[top_area[row]]  # subarea inside the predicted area
        assert len(set(top_topic[row])) == 3
    predictions = model.predict(TopicInputs.from_papers(test.papers))
    for prediction, row in zip(predictions, range(len(test))):
        assert prediction.area == ranking.area_classes[top_area[row]]
        assert 0 < prediction.confidence <= prediction.area_confidence <= 1
        assert prediction.alternatives[0][0] == prediction.topic


def test_words_model_beats_the_majority_class(split):
    train, test = split
    model = TopicClassifier(WORDS_ONLY).fit(TopicInputs.from_papers(train.papers), train.topics)
    predicted = [p.area for p in model.predict(TopicInputs.from_papers(test.papers))]
    accuracy = np.mean([p == t for p, t in zip(predicted, test.areas)])
    majority = max(np.mean([t == area for t in test.areas]) for area in set(train.areas))
    assert accuracy > majority + 0.1


def test_combined_view_reads_embeddings(split):
    train, test = split
    vectors = text_vectors([*[p.title + " " + p.abstract for p in train.papers],
                            *[p.title + " " + p.abstract for p in test.papers]], dim=32)
    config = ModelConfig(views=(ViewSpec("combined", C=30.0),))
    assert config.needs_embeddings and not WORDS_ONLY.needs_embeddings
    model = TopicClassifier(config).fit(TopicInputs.from_papers(train.papers, vectors[:600]), train.topics)
    predictions = model.predict(TopicInputs.from_papers(test.papers, vectors[600:]))
    assert len(predictions) == len(test)
    with pytest.raises(ValueError, match="embeddings"):
        model.predict(TopicInputs.from_papers(test.papers))


def test_config_fingerprint_changes_with_config():
    assert ModelConfig().fingerprint() == ModelConfig().fingerprint()
    assert ModelConfig().fingerprint() != WORDS_ONLY.fingerprint()
    assert ModelConfig(area_blend=0.3).fingerprint() != ModelConfig().fingerprint()


def test_unknown_view_is_a_clear_error(split):
    train, _ = split
    with pytest.raises(ValueError, match="unknown feature view 'nope'"):
        TopicClassifier(ModelConfig(views=(ViewSpec("nope"),))).fit(TopicInputs.from_papers(train.papers), train.topics)
