"""Train the topic model on the store's labeled papers and predict every unlabeled paper.

The model version is a hash of the labels (ids, topics, text hashes), the model config and
the embedding models. A trained model is kept as DATA_DIR/topics/model-<version>.joblib;
predictions go to the `predicted_topics` table. A run recomputes every prediction when the
version changed, otherwise only papers ingested (or changed) since the last run.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np

from papersift.index.predictions import PredictionStore, StoredPrediction
from papersift.store import Store
from papersift.topics.classifier import ModelConfig, TopicClassifier
from papersift.topics.dataset import LabeledSet, labels_fingerprint, load_labeled, load_unlabeled
from papersift.topics.features import EMBEDDING_SOURCES, TopicInputs, UnlabeledCorpus, paper_embeddings, paper_text
from papersift.topics.files import topics_dir

PREDICT_BATCH = 4096

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class TrainedModel:
    classifier: TopicClassifier
    version: str
    embedding_sources: tuple[str, ...]  # EMBEDDING_SOURCES keys the classifier reads
    labeled_papers: int

    @property
    def embedding_model(self) -> str | None:
        return embedding_label(self.embedding_sources)


@dataclass
class PredictSummary:
    mode: str  # "full" | "incremental" | "up-to-date"
    predicted: int
    stored_total: int
    model_version: str
    trained: bool
    seconds: float
    by_area: dict[str, int] = field(default_factory=dict)


class TopicsError(RuntimeError):
    """Nothing to train on, or a model that cannot run; the message says what to do."""


def embedding_label(sources: tuple[str, ...]) -> str | None:
    """The models behind `sources`, as people read them: 'multilingual-e5-small + all-MiniLM-L6-v2 (int8)'."""
    return " + ".join(EMBEDDING_SOURCES[key].label for key in sources) or None


def model_version(labeled: LabeledSet, config: ModelConfig) -> str:
    payload = f"{labels_fingerprint(labeled)}|{config.fingerprint()}|{embedding_label(config.embedding_sources) or '-'}"
    return hashlib.sha1(payload.encode()).hexdigest()[:16]


def source_embeddings(data_dir, papers, sources: tuple[str, ...], compute_missing: bool,
                      progress: Progress | None = None, stage: str = "embed") -> dict[str, np.ndarray]:
    """Vectors of `papers` from every embedding source the model reads (see paper_embeddings)."""
    vectors = {}
    for key in sources:
        source = EMBEDDING_SOURCES[key]
        label = f"{stage} {key}"
        report = None if progress is None else (lambda done, total, label=label: progress(label, done, total))
        vectors[key] = paper_embeddings(data_dir, papers, source.model, compute_missing=compute_missing,
                                        progress=report, variant=source.variant)
    return vectors


def unlabeled_corpus(store: Store) -> UnlabeledCorpus:
    """Texts of the papers without a source area that have an abstract (the unsupervised views' corpus)."""
    return UnlabeledCorpus([paper_text(paper)
                            for _, paper in load_unlabeled(store) if paper.has_abstract])


def train_model(data_dir: str | Path, config: ModelConfig, compute_missing: bool = True,
                progress: Progress | None = None) -> tuple[TrainedModel, bool]:
    """The model for the current labels and config, trained (and saved) when absent; and whether it was."""
    store = Store(data_dir, readonly=True)
    try:
        labeled = load_labeled(store)
        corpus = unlabeled_corpus(store) if config.needs_corpus else None
    finally:
        store.close()
    if len(labeled) < 10:
        raise TopicsError(f"only {len(labeled)} papers with a source area and an abstract: too few to train on")
    version = model_version(labeled, config)
    folder = topics_dir(data_dir)
    path = folder / f"model-{version}.joblib"
    if path.exists():
        return joblib.load(path), False
    embeddings = source_embeddings(data_dir, labeled.papers, config.embedding_sources, compute_missing, progress,
                                   "embed labeled")
    if progress:
        progress("train", 0, len(labeled))
    inputs = TopicInputs.from_papers(labeled.papers, embeddings, corpus)
    try:
        classifier = TopicClassifier(config).fit(inputs, labeled.topics)
    except ValueError as exc:  # e.g. an unlabeled corpus too small for the LSA view
        raise TopicsError(f"{exc} (or pass --words-only)") from None
    model = TrainedModel(classifier, version, config.embedding_sources, len(labeled))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("model-*.joblib"):
        old.unlink()
    temporary = path.with_suffix(".tmp")
    joblib.dump(model, temporary)
    temporary.replace(path)
    if progress:
        progress("train", len(labeled), len(labeled))
    return model, True


def predict_all(data_dir: str | Path, config: ModelConfig | None = None, force: bool = False,
                compute_missing: bool = False, progress: Progress | None = None) -> PredictSummary:
    """Predict topics of every paper without a source area and store them."""
    started = time.perf_counter()
    config = config or ModelConfig()
    model, trained = train_model(data_dir, config, compute_missing, progress)
    store = Store(data_dir, readonly=True)
    try:
        # The highest seq first: a paper committed between the two reads is then predicted
        # again next time, instead of lying at or below last_seq unseen for good.
        last_seq = store.max_seq()
        unlabeled = load_unlabeled(store)
    finally:
        store.close()
    with PredictionStore(data_dir) as predictions:
        full = force or predictions.model_version() != model.version
        since = 0 if full else predictions.last_seq()
        todo = [paper for seq, paper in unlabeled if seq > since]
        unlabeled_ids = {paper.id for _, paper in unlabeled}
        stale_ids = [] if full else [p.paper_id for p in predictions.all() if p.paper_id not in unlabeled_ids]
        if not todo and not full and not stale_ids:
            return PredictSummary("up-to-date", 0, predictions.count(), model.version, trained,
                                  round(time.perf_counter() - started, 2))
        embeddings = source_embeddings(data_dir, todo, model.embedding_sources, compute_missing, progress)
        rows = _predict_rows(model, todo, embeddings, progress)
        predictions.write(rows, model.version, last_seq, replace_all=full, drop_ids=stale_ids)
        return PredictSummary(
            mode="full" if full else "incremental",
            predicted=len(rows),
            stored_total=predictions.count(),
            model_version=model.version,
            trained=trained,
            seconds=round(time.perf_counter() - started, 2),
            by_area=dict(Counter(row.area for row in rows).most_common()),
        )


def _predict_rows(model: TrainedModel, papers, embeddings: dict[str, np.ndarray],
                  progress: Progress | None) -> list[StoredPrediction]:
    rows: list[StoredPrediction] = []
    for start in range(0, len(papers), PREDICT_BATCH):
        batch = papers[start:start + PREDICT_BATCH]
        batch_vectors = {key: vectors[start:start + PREDICT_BATCH] for key, vectors in embeddings.items()}
        for paper, prediction in zip(batch, model.classifier.predict(TopicInputs.from_papers(batch, batch_vectors))):
            rows.append(StoredPrediction(
                paper_id=paper.id, area=prediction.area, subarea=prediction.subarea,
                confidence=round(prediction.confidence, 4), area_confidence=round(prediction.area_confidence, 4),
                alternatives=tuple((topic, round(score, 4)) for topic, score in prediction.alternatives),
                model_version=model.version,
            ))
        if progress:
            progress("predict", len(rows), len(papers))
    return rows
