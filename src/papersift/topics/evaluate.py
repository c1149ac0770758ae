"""Cross-validated accuracy of the topic classifier, with baselines in the same folds.

Folds are stratified on the full `Area · Subarea` label. Reported per model: area and
subarea (the full label) top-1 / top-3 accuracy; for the main model also a confusion
summary of areas. Baselines: the majority class, and tf-idf word 1-2 grams + logistic
regression (the reference the issue quotes).
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold

from papersift.topics.classifier import ModelConfig, TopicClassifier, TopicRanking, ViewSpec
from papersift.topics.dataset import LabeledSet
from papersift.topics.features import TopicInputs, UnlabeledCorpus

# The reference the issue quotes: tf-idf word 1-2 grams + logistic regression, one model per level.
TFIDF_BASELINE = ModelConfig(views=(ViewSpec("words", C=10.0),), area_blend=1.0)


@dataclass
class FoldScores:
    """Per-paper hits accumulated over folds."""

    area_top1: list[bool]
    area_top3: list[bool]
    subarea_top1: list[bool]
    subarea_top3: list[bool]

    @classmethod
    def empty(cls) -> FoldScores:
        return cls([], [], [], [])

    def add(self, ranking: TopicRanking, areas: list[str], topics: list[str]) -> list[str]:
        top_areas = ranking.top_areas(3)
        top_topics = ranking.top_topics(3)
        predicted_areas = []
        for row, (area, topic) in enumerate(zip(areas, topics)):
            area_names = [ranking.area_classes[c] for c in top_areas[row]]
            topic_names = [ranking.topic_classes[c] for c in top_topics[row]]
            self.area_top1.append(area_names[0] == area)
            self.area_top3.append(area in area_names)
            self.subarea_top1.append(topic_names[0] == topic)
            self.subarea_top3.append(topic in topic_names)
            predicted_areas.append(area_names[0])
        return predicted_areas

    def summary(self) -> dict[str, float]:
        return {name: round(float(np.mean(getattr(self, name))), 4)
                for name in ("area_top1", "area_top3", "subarea_top1", "subarea_top3")}


def majority_scores(train_topics: list[str], test_areas: list[str], test_topics: list[str]) -> dict[str, list[bool]]:
    area_counts = Counter(topic.split(" · ")[0] for topic in train_topics).most_common(3)
    topic_counts = Counter(train_topics).most_common(3)
    common_areas = [name for name, _ in area_counts]
    common_topics = [name for name, _ in topic_counts]
    return {
        "area_top1": [area == common_areas[0] for area in test_areas],
        "area_top3": [area in common_areas for area in test_areas],
        "subarea_top1": [topic == common_topics[0] for topic in test_topics],
        "subarea_top3": [topic in common_topics for topic in test_topics],
    }


def confusion_summary(true_areas: list[str], predicted_areas: list[str], top: int = 8) -> dict:
    areas = sorted(set(true_areas))
    pairs = Counter((t, p) for t, p in zip(true_areas, predicted_areas) if t != p)
    totals = Counter(true_areas)
    hits = Counter(t for t, p in zip(true_areas, predicted_areas) if t == p)
    return {
        "area_recall": {area: round(hits[area] / totals[area], 3) for area in areas},
        "area_support": {area: totals[area] for area in areas},
        "most_confused": [
            {"true": t, "predicted": p, "count": count} for (t, p), count in pairs.most_common(top)
        ],
        "matrix": {t: {p: sum(1 for a, b in zip(true_areas, predicted_areas) if a == t and b == p) for p in areas}
                   for t in areas},
    }


def cross_validate(
    labeled: LabeledSet,
    embeddings: np.ndarray | dict[str, np.ndarray] | None,
    config: ModelConfig,
    folds: int = 5,
    seed: int = 0,
    baselines: bool = True,
    progress=None,
    corpus: UnlabeledCorpus | None = None,
) -> dict:
    """Run k-fold CV of `config` (and the baselines) on the labeled papers; returns a report dict.

    `corpus`: unlabeled papers' texts for the unsupervised views (LSA); it holds no labeled
    paper, so fitting on it once for all folds never sees a test fold.
    """
    inputs = TopicInputs.from_papers(labeled.papers, embeddings, corpus)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    model_scores, tfidf_scores = FoldScores.empty(), FoldScores.empty()
    majority: dict[str, list[bool]] = {name: [] for name in ("area_top1", "area_top3", "subarea_top1", "subarea_top3")}
    true_areas, predicted_areas = [], []
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class")
        splits = list(splitter.split(np.zeros(len(labeled)), labeled.topics))
    for fold, (train, test) in enumerate(splits):
        train_set, test_set = labeled.subset(train), labeled.subset(test)
        train_inputs, test_inputs = inputs.take(train), inputs.take(test)
        model = TopicClassifier(config).fit(train_inputs, train_set.topics)
        predicted_areas += model_scores.add(model.rank(test_inputs), test_set.areas, test_set.topics)
        true_areas += test_set.areas
        if baselines:
            tfidf = TopicClassifier(TFIDF_BASELINE).fit(train_inputs, train_set.topics)
            tfidf_scores.add(tfidf.rank(test_inputs), test_set.areas, test_set.topics)
            for name, hits in majority_scores(train_set.topics, test_set.areas, test_set.topics).items():
                majority[name] += hits
        if progress is not None:
            progress(fold + 1, folds)
    report = {
        **model_scores.summary(),
        "papers": len(labeled),
        "areas": len(set(labeled.areas)),
        "topics": len(set(labeled.topics)),
        "folds": folds,
        "seed": seed,
        "model": config.fingerprint(),
        "views": [spec.view + ("" if spec.learner == "lr" else f":{spec.learner}") for spec in config.views],
        "unlabeled_corpus": None if corpus is None else len(corpus),
        "seconds": round(time.perf_counter() - started, 1),
        "confusion": confusion_summary(true_areas, predicted_areas),
    }
    if baselines:
        report["baselines"] = {
            "majority": {name: round(float(np.mean(hits)), 4) for name, hits in majority.items()},
            "tfidf_lr": tfidf_scores.summary(),
        }
    return report


def report_markdown(report: dict) -> str:
    """The CV report as a markdown table plus the confusion summary."""
    metrics = ("area_top1", "area_top3", "subarea_top1", "subarea_top3")
    rows = [("model (" + "+".join(report["views"]) + ")", {name: report[name] for name in metrics})]
    rows += [(f"baseline: {name}", scores) for name, scores in report.get("baselines", {}).items()]
    lines = [
        (f"Topic classifier, {report['folds']}-fold stratified CV on {report['papers']:,} labeled papers "
        f"({report['areas']} areas, {report['topics']} area · subarea labels), {report['seconds']} s"),
        "",
        "| model | area top-1 | area top-3 | subarea top-1 | subarea top-3 |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {name} | " + " | ".join(f"{scores[m]:.3f}" for m in metrics) + " |" for name, scores in rows]
    confusion = report["confusion"]
    lines += ["", "| area | papers | recall |", "|---|---|---|"]
    lines += [f"| {area} | {confusion['area_support'][area]} | {recall:.3f} |"
              for area, recall in confusion["area_recall"].items()]
    lines += ["", "Most confused (true → predicted):"]
    lines += [f"- {pair['true']} → {pair['predicted']}: {pair['count']}" for pair in confusion["most_confused"]]
    return "\n".join(lines) + "\n"
