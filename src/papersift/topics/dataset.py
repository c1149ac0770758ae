"""Labeled and unlabeled papers from the store, and the label fingerprint.

A paper's label is its source topic `Area · Subarea` (or `Area` alone when the source
gives no subarea), the same string `Paper.topic` shows. Labeled papers for training are
those with a source area and an abstract: the 1,992 ICLR 2024 papers of the corpus.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from papersift.record import Paper, split_topic
from papersift.store import Store


@dataclass(frozen=True)
class LabeledSet:
    """Training papers with their labels, in a stable (id) order."""

    papers: list[Paper]
    topics: list[str]  # "Area · Subarea" or "Area"
    areas: list[str]

    def __len__(self) -> int:
        return len(self.papers)

    def subset(self, positions) -> LabeledSet:
        return LabeledSet(
            papers=[self.papers[i] for i in positions],
            topics=[self.topics[i] for i in positions],
            areas=[self.areas[i] for i in positions],
        )


def area_of(topic: str) -> str:
    return split_topic(topic)[0] or topic


def is_trainable(paper: Paper) -> bool:
    return bool(paper.area) and paper.has_abstract


def labeled_set(papers: list[Paper]) -> LabeledSet:
    chosen = sorted((paper for paper in papers if is_trainable(paper)), key=lambda paper: paper.id)
    # A trainable paper has an area, so a topic: `or ""` never applies.
    topics = [paper.topic or "" for paper in chosen]
    return LabeledSet(papers=chosen, topics=topics, areas=[paper.area or "" for paper in chosen])


def load_labeled(store: Store) -> LabeledSet:
    return labeled_set([paper for _, paper in store.iter_papers()])


def load_unlabeled(store: Store) -> list[tuple[int, Paper]]:
    """(seq, paper) for every paper without a source area: these get predictions."""
    return [(seq, paper) for seq, paper in store.iter_papers() if not paper.area]


def labels_fingerprint(labeled: LabeledSet) -> str:
    """Changes when any training paper, its text or its label changes."""
    digest = hashlib.sha1()
    for paper, topic in zip(labeled.papers, labeled.topics):
        digest.update(f"{paper.id}\t{topic}\t{paper.content_hash()}\n".encode())
    return digest.hexdigest()
