from papersift.index.predictions import PredictionStore
from papersift.search.predicted_topics import attach_predicted_topics
from papersift.search.types import Hit
from papersift.store import Store
from papersift.topics.classifier import WORDS_ONLY
from papersift.topics.predict import predict_all


def test_hits_get_predicted_topics_and_source_labels_stay(topics_data_dir):
    predict_all(topics_data_dir, WORDS_ONLY)
    store = Store(topics_data_dir, readonly=True)
    papers = [paper for _, paper in store.iter_papers()]
    store.close()
    labeled = next(p for p in papers if p.area)
    unlabeled = [p for p in papers if not p.area][:5]
    hits = [Hit(labeled, 1.0), *(Hit(p, 0.5) for p in unlabeled)]
    with PredictionStore(topics_data_dir, readonly=True) as predictions:
        attached = attach_predicted_topics(hits, predictions)
        stored = predictions.get_many([p.id for p in unlabeled])
    assert attached[0] is hits[0] and not attached[0].topic_predicted
    for hit, paper in zip(attached[1:], unlabeled):
        assert hit.topic_predicted and hit.paper.id == paper.id
        assert hit.paper.topic == stored[paper.id].topic
        assert hit.paper.title == paper.title and hit.score == 0.5
