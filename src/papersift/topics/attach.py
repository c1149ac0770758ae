"""Show predictions where papers are searched and shown, never in place of source labels.

`with_predicted_topic` is the paper as search sees it (the keyword index indexes its
topic, so `area:` filters and facets count predicted papers too); `attach_predicted_topics`
fills the hits of a results page: papers without a source area get the stored prediction
and `Hit.topic_predicted` (with its confidence) says so, so pages can badge it "predicted".
Papers with a source label are never touched.
"""

from __future__ import annotations

from operator import attrgetter

from papersift.record import PAPER_FIELDS, Paper
from papersift.search.types import Hit
from papersift.topics.storage import PredictionStore

Topic = tuple[str, str | None]  # (area, subarea)
# A page copies ~20 papers: rebuilding one from its values takes half of dataclasses.replace's time.
_paper_values = attrgetter(*PAPER_FIELDS)
_AREA_AT, _SUBAREA_AT = PAPER_FIELDS.index("area"), PAPER_FIELDS.index("subarea")


def with_predicted_topic(paper: Paper, predicted: Topic | None) -> Paper:
    """The paper with its source area/subarea, or, when it has none, the predicted ones."""
    if paper.area or predicted is None:
        return paper
    values = list(_paper_values(paper))
    values[_AREA_AT], values[_SUBAREA_AT] = predicted
    return Paper(*values)


def attach_predicted_topics(hits: list[Hit], predictions: PredictionStore) -> list[Hit]:
    missing = [hit.paper.id for hit in hits if not hit.paper.area]
    if not missing:
        return hits
    found = predictions.topics_of(missing)
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
