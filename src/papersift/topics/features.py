"""Feature views of a paper for the topic classifier.

Each view sees one thing the paper tells: the words of title + abstract (tf-idf 1-2
grams), their character n-grams, the title alone, a sentence embedding (e5 from the vector
index, or all-MiniLM-L6-v2), words and e5 embedding side by side ("combined"; with the
MiniLM vectors and the LSA topics too: "combined_all"), or the latent topics of the words
(LSA: tf-idf + SVD fitted on the unlabeled corpus, never on labeled papers). A view is
fitted on TopicInputs and turns them into a feature matrix for one learner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.base import TransformerMixin
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from papersift.models import DEFAULT_MODEL
from papersift.record import Paper
from papersift.topics.files import EmbeddingsUnavailable


@dataclass(frozen=True)
class EmbeddingSource:
    """Where a view's vectors come from: a model and its ONNX variant.

    variant None: the model's default variant, read from its vector index
    (`papersift embed --model M`); another variant is read from (or written to) the
    embedding cache, computed by `topics predict --embed-missing`.
    """

    key: str
    model: str
    variant: str | None = None

    @property
    def label(self) -> str:
        return self.model if self.variant is None else f"{self.model} ({self.variant})"


EMBEDDING_SOURCES: dict[str, EmbeddingSource] = {
    "e5": EmbeddingSource("e5", DEFAULT_MODEL),
    # int8: 2x faster to embed than fp32 (the whole corpus once), and as good here (README "Topics")
    "minilm": EmbeddingSource("minilm", "all-MiniLM-L6-v2", "int8"),
}


class UnlabeledCorpus:
    """Texts of papers without labels, for views fitted without supervision (LSA).

    The fitted LSA is kept on the object, so the folds of one cross-validation share it:
    it never sees a label or a labeled paper's text.
    """

    def __init__(self, texts: Sequence[str]):
        self.texts = list(texts)
        self._lsa = None

    def __len__(self) -> int:
        return len(self.texts)

    def lsa(self):
        if self._lsa is None:
            if len(self.texts) < 2 * LSA_COMPONENTS:
                raise ValueError(f"the 'lsa' view needs an unlabeled corpus of at least {2 * LSA_COMPONENTS} "
                                 f"papers with abstracts, got {len(self.texts)}")
            pipeline = make_pipeline(_corpus_words(), TruncatedSVD(LSA_COMPONENTS, random_state=0), Normalizer())
            pipeline.fit(self.texts)
            svd = pipeline[1]
            svd.components_ = svd.components_.astype(np.float32)  # half the model file, same topics
            self._lsa = pipeline
        return self._lsa


@dataclass(frozen=True)
class TopicInputs:
    """What the classifier reads about a batch of papers, aligned by position."""

    titles: list[str]
    texts: list[str]  # title + abstract (title alone for title-only papers)
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)  # source key -> (n, dim) float32
    corpus: UnlabeledCorpus | None = None  # for fitting unsupervised views; not needed to transform

    @classmethod
    def from_papers(cls, papers: Sequence[Paper], embeddings: np.ndarray | Mapping[str, np.ndarray] | None = None,
                    corpus: UnlabeledCorpus | None = None) -> TopicInputs:
        """`embeddings`: vectors per source key, or one array of the default (e5) vectors."""
        if embeddings is None:
            vectors = {}
        elif isinstance(embeddings, Mapping):
            vectors = dict(embeddings)
        else:
            vectors = {"e5": embeddings}
        for key, rows in vectors.items():
            if len(rows) != len(papers):
                raise ValueError(f"{len(rows)} {key} embeddings for {len(papers)} papers")
        return cls(
            titles=[paper.title for paper in papers],
            texts=[paper_text(paper) for paper in papers],
            vectors=vectors,
            corpus=corpus,
        )

    def __len__(self) -> int:
        return len(self.titles)

    def take(self, positions: Sequence[int] | np.ndarray) -> TopicInputs:
        rows = np.asarray(positions)
        return TopicInputs(
            titles=[self.titles[i] for i in positions],
            texts=[self.texts[i] for i in positions],
            vectors={key: matrix[rows] for key, matrix in self.vectors.items()},
            corpus=self.corpus,
        )

    def field(self, name: str):
        if name in ("texts", "titles"):
            return getattr(self, name)
        if name not in self.vectors:
            raise ValueError(f"the view needs {name} embeddings, but none were given")
        return self.vectors[name]


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract}" if paper.abstract else paper.title


class FieldView:
    """Fits one transformer on one field of TopicInputs (texts, titles or embeddings)."""

    def __init__(self, field: str, make: Callable[[], TransformerMixin]):
        self.field_name, self.make = field, make
        self.transformer: TransformerMixin | None = None

    def fit(self, inputs: TopicInputs) -> FieldView:
        self.transformer = self.make().fit(inputs.field(self.field_name))
        return self

    def transform(self, inputs: TopicInputs):
        return _fitted(self.transformer).transform(inputs.field(self.field_name))


class CombinedView:
    """Side-by-side columns of several views, so one learner weighs words and embeddings jointly.

    Measured under 5-fold CV: better than averaging separate per-view models.
    """

    def __init__(self, parts: list[FieldView | LsaView]):
        self.parts = parts

    def fit(self, inputs: TopicInputs) -> CombinedView:
        for part in self.parts:
            part.fit(inputs)
        return self

    def transform(self, inputs: TopicInputs):
        blocks = [part.transform(inputs) for part in self.parts]
        return sparse.hstack([sparse.csr_matrix(block) for block in blocks], format="csr")


def _words() -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_df=0.5, sublinear_tf=True, stop_words="english",
                           dtype=np.float32)


LSA_COMPONENTS = 300


def _corpus_words() -> TfidfVectorizer:
    # capped vocabulary: the SVD's components are kept in the model file (300 x 40,000 float32)
    return TfidfVectorizer(ngram_range=(1, 2), min_df=3, max_df=0.5, sublinear_tf=True, stop_words="english",
                           max_features=40_000, dtype=np.float32)


def _chars() -> TfidfVectorizer:
    return TfidfVectorizer(
        analyzer="char_wb", ngram_range=(3, 5), min_df=3, max_df=0.5, sublinear_tf=True, max_features=150_000,
        dtype=np.float32,
    )


def _title_words() -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True, dtype=np.float32)


class LsaView:
    """Latent topics of the words: tf-idf + SVD fitted on the unlabeled corpus (TopicInputs.corpus)."""

    def __init__(self):
        self.transformer = None

    def fit(self, inputs: TopicInputs) -> LsaView:
        if inputs.corpus is None:
            raise ValueError("the 'lsa' view needs the unlabeled corpus, but none was given")
        self.transformer = inputs.corpus.lsa()
        return self

    def transform(self, inputs: TopicInputs):
        return _fitted(self.transformer).transform(inputs.texts)


VIEWS: dict[str, Callable[[], FieldView | CombinedView | LsaView]] = {
    "words": lambda: FieldView("texts", _words),
    "chars": lambda: FieldView("texts", _chars),
    "title": lambda: FieldView("titles", _title_words),
    "embed": lambda: FieldView("e5", Normalizer),
    "minilm": lambda: FieldView("minilm", Normalizer),
    "lsa": LsaView,
    "combined": lambda: CombinedView([FieldView("texts", _words), FieldView("e5", Normalizer)]),
    # every column the other views read, for one LR: words, e5, MiniLM (each unit length) and the
    # corpus LSA topics (unit length). Measured in the default mix on 3 fold seeds: area top-1
    # +0.004 to +0.008, subarea top-3 +0.002 to +0.007 over "combined" (README "Topics").
    "combined_all": lambda: CombinedView([FieldView("texts", _words), FieldView("e5", Normalizer),
                                          FieldView("minilm", Normalizer), LsaView()]),
}
# The embedding sources (EMBEDDING_SOURCES keys) each view reads; views not listed read text only.
VIEW_SOURCES: dict[str, tuple[str, ...]] = {
    "embed": ("e5",), "combined": ("e5",), "minilm": ("minilm",), "combined_all": ("e5", "minilm"),
}
CORPUS_VIEWS = {"lsa", "combined_all"}


def _fitted(transformer: TransformerMixin | None) -> TransformerMixin:
    if transformer is None:
        raise RuntimeError("a feature view transforms only after fit()")
    return transformer


def make_view(name: str) -> FieldView | CombinedView | LsaView:
    try:
        return VIEWS[name]()
    except KeyError:
        raise ValueError(f"unknown feature view '{name}' (known: {', '.join(VIEWS)})") from None


def paper_embeddings(
    data_dir,
    papers: Sequence[Paper],
    model: str | None = None,
    compute_missing: bool = True,
    progress: Callable[[int, int], None] | None = None,
    variant: str | None = None,
) -> np.ndarray:
    """Passage vectors of `papers` (rows aligned), from papersift's vector index.

    Papers the published index lacks are read from the embedding cache (where a running
    `papersift embed` writes them); with `compute_missing` the rest are embedded with the
    same encoder (and cached), else EmbeddingsUnavailable says how many lack a vector.
    A `variant` other than the model's default (the one its index holds) skips the index.
    """
    from papersift.index.embeddings import EmbeddingCache, Encoder, embed_with_cache
    from papersift.index.vectors import VectorIndex
    from papersift.models import ModelError, get_spec

    model = model or DEFAULT_MODEL
    label = EmbeddingSource("", model, variant).label
    from_index = variant is None or variant == get_spec(model).default_variant
    index = VectorIndex.open(data_dir, model) if from_index else None
    rows = [None if index is None else index.row_of.get(paper.id) for paper in papers]
    missing = [position for position, row in enumerate(rows) if row is None]
    if index is not None and len(missing) < len(papers):
        present = [position for position, row in enumerate(rows) if row is not None]
        dim = index.vectors.shape[1]
    else:
        present, dim = [], None
    vectors_missing = None
    if missing:
        try:
            encoder = Encoder(model, variant=variant)
        except ModelError as exc:
            raise EmbeddingsUnavailable(f"{len(missing):,} papers have no {label} vector and the model "
                                        f"cannot run: {exc}") from None
        texts = [_embedding_text(papers[position]) for position in missing]
        with EmbeddingCache(data_dir) as cache:
            if compute_missing:
                report = None
                if progress is not None:
                    report = lambda state: progress(state.cached + state.embedded, state.total)  # noqa: E731
                vectors_missing = embed_with_cache(encoder, cache, texts, on_progress=report)
            else:
                hint = "run 'papersift embed' first" if from_index else "it lives in the embedding cache, not a vector index"
                vectors_missing = _cached_only(encoder, cache, texts, len(papers), label, hint)
    if dim is None:  # nothing from the index: the cache's (or the encoder's) width
        dim = vectors_missing.shape[1] if vectors_missing is not None else 0
    vectors = np.zeros((len(papers), dim), dtype=np.float32)
    if index is not None and present:
        vectors[present] = index.vectors[[rows[position] for position in present]]
    if missing:
        vectors[missing] = vectors_missing
    return vectors


def _cached_only(encoder, cache, texts: list[str], total: int, label: str, hint: str) -> np.ndarray:
    """Vectors the embedding cache already holds (a run in progress writes them there)."""
    from papersift.index.embeddings import token_key

    model_inputs = [encoder.passage_input(text) for text in texts]
    keys = [token_key(encoder.cache_key_prefix, ids) for ids in encoder.tokenize(model_inputs)]
    found = cache.get_many(keys)
    lacking = sum(key not in found for key in keys)  # papers with the same text share one key
    if lacking:
        raise EmbeddingsUnavailable(f"{lacking:,} of {total:,} papers have no {label} vector yet; {hint}")
    return np.stack([found[key] for key in keys])


def _embedding_text(paper: Paper) -> str:
    from papersift.index.embeddings import paper_text as embedding_text

    return embedding_text(paper)
