"""Show predictions where papers are searched and shown, never in place of source labels.

`with_predicted_topic` (index/predictions.py) is the paper as search sees it (the keyword index indexes its
topic, so `area:` filters and facets count predicted papers too); `attach_predicted_topics`
fills the hits of a results page: papers without a source area get the stored prediction
and `Hit.topic_predicted` (with its confidence) says so, so pages can badge it "predicted".
Papers with a source label are never touched.
"""

from __future__ import annotations

from papersift.index.predictions import PredictionStore, with_predicted_topic
from papersift.search.types import Hit


def attach_predicted_topics(hits: list[Hit], predictions: PredictionStore) -> list[Hit]:
    missing = [hit.paper.id for hit in hits if not hit.paper.area]
    if not missing:
        return hits
    found = predictions.topics_of(missing)
    if not found:
        return hits
    attached = []
    for hit in hits:
        guess = None if hit.paper.area else found.get(hit.paper.id)
        if guess is None:
            attached.append(hit)
        else:
            area, subarea, confidence = guess
            paper = with_predicted_topic(hit.paper, (area, subarea))
            attached.append(Hit(paper=paper, score=hit.score, highlights=hit.highlights, topic_predicted=True,
                                topic_confidence=confidence))
    return attached
