"""Show predictions where results are shown: hits without a source topic get the predicted one.

For the search service and any other reader of hits: the paper's area/subarea are filled
from `predicted_topics` and `Hit.topic_predicted` says so, so pages can badge it "predicted".
Papers with a source label are never touched.
"""

from __future__ import annotations

from dataclasses import replace

from papersift.search.types import Hit
from papersift.topics.storage import PredictionStore


def attach_predicted_topics(hits: list[Hit], predictions: PredictionStore) -> list[Hit]:
    missing = [hit.paper.id for hit in hits if not hit.paper.area]
    if not missing:
        return hits
    found = predictions.get_many(missing)
    attached = []
    for hit in hits:
        guess = None if hit.paper.area else found.get(hit.paper.id)
        if guess is None:
            attached.append(hit)
        else:
            paper = replace(hit.paper, area=guess.area, subarea=guess.subarea)
            attached.append(replace(hit, paper=paper, topic_predicted=True))
    return attached
