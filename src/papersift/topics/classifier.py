"""The topic classifier: per-view models averaged, area and subarea kept consistent.

For every feature view two learners are fit: one for the area, one for the joint
`Area · Subarea` label. Their probabilities are averaged across views with the configured
weights (each view's learner is regularized on its own: logistic regression on the wide
tf-idf columns, shrinkage LDA on the dense embeddings and latent topics). The area
distribution blends the area models with the joint model summed per area; a subarea is
then scored as P(area) · P(subarea | area), so the predicted subarea always lies inside
the predicted area.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
import orjson
from scipy import sparse
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from papersift.record import split_topic
from papersift.topics.dataset import area_of
from papersift.topics.features import CORPUS_VIEWS, VIEW_SOURCES, TopicInputs, make_view

MODEL_FORMAT = 2


@dataclass(frozen=True)
class ViewSpec:
    """One view with its learner: 'lr' (logistic regression, inverse regularization C), 'lda'
    (linear discriminant analysis with Ledoit-Wolf shrinkage: no knob to tune) or 'knn'."""

    view: str
    learner: str = "lr"
    C: float = 10.0
    neighbors: int = 25
    weight: float = 1.0


    @classmethod
    def parse(cls, text: str) -> ViewSpec:
        """'view[:learner[:C or neighbors]]', e.g. 'minilm:lda', 'combined:lr:30', 'embed:knn:25'."""
        parts = text.strip().split(":")
        if len(parts) > 3 or not parts[0]:
            raise ValueError(f"view spec '{text}': expected view[:learner[:number]]")
        view = parts[0]
        learner = parts[1] if len(parts) > 1 and parts[1] else "lr"
        knob = parts[2] if len(parts) > 2 else ""
        try:
            number = float(knob) if knob else None
        except ValueError:
            raise ValueError(f"view spec '{text}': '{knob}' is not a number") from None
        if learner == "knn":
            return cls(view, learner, neighbors=int(number) if number else 25)
        return cls(view, learner, C=number or 10.0)


@dataclass(frozen=True)
class ModelConfig:
    # Measured (5-fold CV, see README "Topics"): the mean of three views that each know
    # something else -- LR on words + e5 + MiniLM + LSA columns, shrinkage LDA on MiniLM
    # vectors, shrinkage LDA on the corpus LSA -- beats each alone and the other mixes measured.
    views: tuple[ViewSpec, ...] = (
        ViewSpec("combined_all", C=30.0),
        ViewSpec("minilm", learner="lda"),
        ViewSpec("lsa", learner="lda"),
    )
    area_blend: float = 0.5  # weight of the direct area models against the summed joint model
    combine: str = "mean"  # 'mean' of probabilities or 'geometric' mean

    @property
    def embedding_sources(self) -> tuple[str, ...]:
        """EMBEDDING_SOURCES keys the views read, in view order."""
        keys = [key for spec in self.views for key in VIEW_SOURCES.get(spec.view, ())]
        return tuple(dict.fromkeys(keys))

    @property
    def needs_embeddings(self) -> bool:
        return bool(self.embedding_sources)

    @property
    def needs_corpus(self) -> bool:
        return any(spec.view in CORPUS_VIEWS for spec in self.views)

    def fingerprint(self) -> str:
        payload = {"format": MODEL_FORMAT, **asdict(self)}
        return hashlib.sha1(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]


# Without embeddings (no encoder built, or embeddings not asked for): tf-idf words alone.
WORDS_ONLY = ModelConfig(views=(ViewSpec("words", C=30.0),))


@dataclass
class TopicRanking:
    """Probabilities for a batch: areas (n, A) and hierarchical joint scores (n, T)."""

    area_classes: list[str]
    area_probs: np.ndarray
    topic_classes: list[str]
    topic_scores: np.ndarray

    def top_areas(self, k: int) -> np.ndarray:
        return np.argsort(-self.area_probs, axis=1)[:, :k]

    def top_topics(self, k: int) -> np.ndarray:
        """Top-k topics per paper; the first one always lies in the top area."""
        order = np.argsort(-self.topic_scores, axis=1)
        best_area = self.area_probs.argmax(axis=1)
        topic_area = np.array([self.area_classes.index(area_of(t)) for t in self.topic_classes])
        ranked = np.empty((len(order), k), dtype=int)
        for row, candidates in enumerate(order):
            first = next(c for c in candidates if topic_area[c] == best_area[row])
            rest = [c for c in candidates if c != first][: k - 1]
            ranked[row] = [first, *rest]
        return ranked


@dataclass(frozen=True)
class TopicPrediction:
    area: str
    subarea: str | None
    area_confidence: float
    confidence: float  # of the full `Area · Subarea`
    alternatives: tuple[tuple[str, float], ...] = field(default=())

    @property
    def topic(self) -> str:
        return f"{self.area} · {self.subarea}" if self.subarea else self.area


def _learner(spec: ViewSpec):
    if spec.learner == "lr":
        # saga: as accurate as lbfgs here and 10-40x faster on wide sparse tf-idf (measured)
        return LogisticRegression(C=spec.C, solver="saga", max_iter=100, tol=1e-3, random_state=0)
    if spec.learner == "lda":
        return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
    if spec.learner == "knn":
        return KNeighborsClassifier(n_neighbors=spec.neighbors, weights="distance", metric="cosine")
    raise ValueError(f"unknown learner '{spec.learner}' (known: lr, lda, knn)")


def _aligned_proba(model, matrix_input, classes: list[str]) -> np.ndarray:
    """predict_proba with columns in `classes` order (a fold may miss rare classes)."""
    probs = model.predict_proba(matrix_input)
    aligned = np.zeros((probs.shape[0], len(classes)), dtype=np.float64)
    positions = [classes.index(label) for label in model.classes_]
    aligned[:, positions] = probs
    return aligned


class TopicClassifier:
    def __init__(self, config: ModelConfig | None = None):
        self.config = config or ModelConfig()
        self.area_classes: list[str] = []
        self.topic_classes: list[str] = []
        self._models: list[tuple] = []  # (spec, fitted view transformer, area model, topic model)

    def fit(self, inputs: TopicInputs, topics: list[str]) -> TopicClassifier:
        areas = [area_of(topic) for topic in topics]
        self.area_classes = sorted(set(areas))
        self.topic_classes = sorted(set(topics))
        self._models = []
        for spec in self.config.views:
            features = make_view(spec.view).fit(inputs)
            matrix = features.transform(inputs)
            if spec.learner == "lda" and sparse.issparse(matrix):
                raise ValueError(f"the lda learner needs a dense view (embed, minilm, lsa), not '{spec.view}'")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                # LDA's covariance estimate warns about labels with a single paper; shrinkage copes
                warnings.filterwarnings("ignore", message="Only one sample available")
                area_model = _learner(spec).fit(matrix, areas)
                topic_model = _learner(spec).fit(matrix, topics)
            self._models.append((spec, features, area_model, topic_model))
        return self

    def _average(self, parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
        total = sum(weight for weight, _ in parts)
        if self.config.combine == "geometric":
            logs = sum(weight * np.log(np.clip(probs, 1e-9, 1.0)) for weight, probs in parts) / total
            combined = np.exp(logs - logs.max(axis=1, keepdims=True))
        else:
            combined = sum(weight * probs for weight, probs in parts) / total
        return combined / combined.sum(axis=1, keepdims=True)

    def rank(self, inputs: TopicInputs) -> TopicRanking:
        if not self._models:
            raise RuntimeError("the topic classifier is not trained")
        area_parts, topic_parts = [], []
        for spec, features, area_model, topic_model in self._models:
            matrix = features.transform(inputs)
            area_parts.append((spec.weight, _aligned_proba(area_model, matrix, self.area_classes)))
            topic_parts.append((spec.weight, _aligned_proba(topic_model, matrix, self.topic_classes)))
        topic_probs = self._average(topic_parts)
        direct_area = self._average(area_parts)
        topic_area = np.array([self.area_classes.index(area_of(t)) for t in self.topic_classes])
        summed_area = np.zeros_like(direct_area)
        np.add.at(summed_area.T, topic_area, topic_probs.T)
        blend = self.config.area_blend
        area_probs = blend * direct_area + (1 - blend) * summed_area
        within_area = topic_probs / np.maximum(summed_area[:, topic_area], 1e-12)
        topic_scores = area_probs[:, topic_area] * within_area
        return TopicRanking(self.area_classes, area_probs, self.topic_classes, topic_scores)

    def predict(self, inputs: TopicInputs, alternatives: int = 3) -> list[TopicPrediction]:
        ranking = self.rank(inputs)
        top_topics = ranking.top_topics(alternatives)
        predictions = []
        for row, topic_positions in enumerate(top_topics):
            best = ranking.topic_classes[topic_positions[0]]
            area, subarea = split_topic(best)
            area = area or best
            predictions.append(TopicPrediction(
                area=area,
                subarea=subarea,
                area_confidence=float(ranking.area_probs[row, ranking.area_classes.index(area)]),
                confidence=float(ranking.topic_scores[row, topic_positions[0]]),
                alternatives=tuple(
                    (ranking.topic_classes[c], float(ranking.topic_scores[row, c])) for c in topic_positions
                ),
            ))
        return predictions
