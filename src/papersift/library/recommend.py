"""Recommendations learned from a library: per tag, or from every liked / tagged paper.

papersift's method: two views of "papers like these", each standardized over the corpus and
added with equal weight:
- a linear SVM (scikit-learn's LinearSVC, as arxiv-sanity) trained on the user's positives (a
  tag's papers, or every tagged and liked paper) against their "not interested" papers
  (weighted up) and a fixed random sample of the corpus, over the e5 vector of each paper
  beside its tf-idf keyword features (features.py): what sets the positives apart;
- the e5 cosine to the positives' centroid (Rocchio): what they are about. With one or two
  positives the SVM mostly learns that paper's words; the centroid is what a one-paper tag
  asks for (similar-paper users in `bench recommend`), and as the tag grows the SVM's spread
  dominates.
Standardizing over every paper (not over the candidates) keeps the order of two papers the
same under any filter. Training on a sample instead of the whole corpus keeps a request to
tens of milliseconds; the model is trained per request, so it always reflects the library as
it is (nothing is stored). Papers in the library are left out, filters restrict the
candidates, and each hit is explained by the positives nearest to it. Evidence and the
variants measured: docs/library.md.

The two baselines of `bench recommend` live here too, as pure rankers with the same
signature: arxiv-sanity's (tf-idf only, trained on every paper) and nearest neighbours on the
embeddings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from papersift.index.vectors import top_k
from papersift.library.entries import Library
from papersift.library.features import Features
from papersift.search.fusion import standardized

BACKGROUND = 1000  # random corpus papers taken as negatives (fixed seed)
NEGATIVE_WEIGHT = 3.0  # an explicit "not interested" counts this much more than a background paper
VECTOR_WEIGHT = 1.0  # scale of the e5 block beside the (l2-normalized) tf-idf block
SVM_C = 0.1
EXPLAIN_NEAREST = 3


@dataclass
class Recommendation:
    paper_id: str
    score: float
    because: list[tuple[str, float]] = field(default_factory=list)  # (positive paper id, similarity)


def _similarities(features: Features, rows: np.ndarray, positive_rows: np.ndarray) -> np.ndarray:
    """[rows, positives] cosine similarities: e5 vectors, or tf-idf without vectors."""
    if features.vectors is not None:
        return features.vectors[rows] @ features.vectors[positive_rows].T
    return (features.tfidf[rows] @ features.tfidf[positive_rows].T).toarray()


def svm_scores(features: Features, positive_rows: np.ndarray, negative_rows: np.ndarray, seed: int = 0) -> np.ndarray:
    """The decision value for every paper of a LinearSVC trained on the positives against the
    not-interested papers (weighted up) and a random background sample, over e5 + tf-idf."""
    from sklearn.svm import LinearSVC

    count = len(features)
    rng = np.random.default_rng(seed)
    background = rng.choice(count, size=min(BACKGROUND, count), replace=False)
    background = np.setdiff1d(background, np.concatenate([positive_rows, negative_rows]))
    rows = np.concatenate([positive_rows, negative_rows, background])
    labels = np.concatenate([np.ones(len(positive_rows)), np.zeros(len(negative_rows) + len(background))])
    weights = np.concatenate([np.ones(len(positive_rows)), np.full(len(negative_rows), NEGATIVE_WEIGHT),
                              np.ones(len(background))])
    model = LinearSVC(C=SVM_C, class_weight="balanced", tol=1e-3, max_iter=2000)
    model.fit(features.training_matrix(VECTOR_WEIGHT)[rows], labels, sample_weight=weights)
    coef = model.coef_.ravel().astype(np.float32)  # float32 like the matrices: no upcast copy of them
    scores = np.full(count, float(model.intercept_[0]), dtype=np.float32)
    offset = 0
    if features.vectors is not None:
        dim = features.vectors.shape[1]
        scores += features.vectors @ (coef[:dim] * VECTOR_WEIGHT)
        offset = dim
    if features.tfidf is not None:
        scores += features.tfidf @ coef[offset:]
    return scores


def papersift_scores(features: Features, positive_rows: np.ndarray, negative_rows: np.ndarray,
                     seed: int = 0) -> np.ndarray:
    """Every paper's score: the standardized SVM decision value plus, with e5 vectors, the
    standardized cosine to the positives' centroid."""
    scores = standardized(svm_scores(features, positive_rows, negative_rows, seed))
    if features.vectors is not None:
        scores += standardized(features.vectors @ features.vectors[positive_rows].mean(axis=0))
    return scores


def papersift_rank(features: Features, positive_rows: np.ndarray, negative_rows: np.ndarray,
                   candidates: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """papersift's ranking: the candidates by `papersift_scores`."""
    if not len(candidates):
        return candidates
    scores = papersift_scores(features, positive_rows, negative_rows, seed)
    return candidates[top_k(scores[candidates], k)]


def tfidf_svm_rank(features: Features, positive_rows: np.ndarray, negative_rows: np.ndarray,
                   candidates: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """arxiv-sanity-lite's svm_rank: tf-idf only, every paper a training row (the positives 1,
    all others 0), LinearSVC(class_weight='balanced', max_iter=10000, tol=1e-6, C=0.01)."""
    from sklearn.svm import LinearSVC

    labels = np.zeros(len(features))
    labels[positive_rows] = 1
    model = LinearSVC(class_weight="balanced", verbose=False, max_iter=10000, tol=1e-6, C=0.01)
    model.fit(features.tfidf, labels)
    scores = model.decision_function(features.tfidf[candidates])
    return candidates[top_k(scores, k)]


def knn_rank(features: Features, positive_rows: np.ndarray, negative_rows: np.ndarray,
             candidates: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Nearest neighbours on the embeddings: cosine to the centroid of the positives."""
    if features.vectors is None:
        raise ValueError("nearest neighbours need the papers' e5 vectors ('papersift embed')")
    centroid = features.vectors[positive_rows].mean(axis=0)
    return candidates[top_k(features.vectors[candidates] @ centroid, k)]


RANKERS = {"papersift": papersift_rank, "tfidf_svm": tfidf_svm_rank, "knn": knn_rank}


def explain(features: Features, hit_rows: np.ndarray, positive_rows: np.ndarray,
            nearest: int = EXPLAIN_NEAREST) -> list[list[tuple[str, float]]]:
    """For each hit, the positives most like it (e5 cosine, or tf-idf cosine without vectors)."""
    if not len(hit_rows) or not len(positive_rows):
        return [[] for _ in hit_rows]
    reasons = []
    for row in _similarities(features, hit_rows, positive_rows):
        order = top_k(row, nearest)
        reasons.append([(features.paper_ids[positive_rows[index]], float(row[index])) for index in order])
    return reasons


def recommend_rows(features: Features, positives: list[str], not_interested: list[str], seen: set[str],
                   k: int = 20, allowed: set[str] | None = None) -> list[Recommendation]:
    """The pure core of `recommend`: paper ids in, explained hits out (nothing read or written)."""
    positive_rows, negative_rows = features.rows(positives), features.rows(not_interested)
    if not len(positive_rows):
        raise NothingToLearn("no papers with features to learn from (tag or like some papers first)")
    candidate_mask = np.ones(len(features), dtype=bool)
    candidate_mask[features.rows(seen)] = False
    if allowed is not None:
        allowed_mask = np.zeros(len(features), dtype=bool)
        allowed_mask[features.rows(allowed)] = True
        candidate_mask &= allowed_mask
    hit_rows = papersift_rank(features, positive_rows, negative_rows, np.flatnonzero(candidate_mask), k)
    similarity_to_nearest = explain(features, hit_rows, positive_rows)
    return [Recommendation(features.paper_ids[row], because[0][1] if because else 0.0, because)
            for row, because in zip(hit_rows, similarity_to_nearest)]


def explanation(because_titles: list[str], tag: str | None) -> str:
    """'like the 3 papers in tag 'diffusion': A; B; C' (the tagged papers nearest to the hit)."""
    where = f"in tag {tag!r}" if tag is not None else "in your library"
    noun = "paper" if len(because_titles) == 1 else f"{len(because_titles)} papers"
    return f"like the {noun} {where}: {'; '.join(because_titles)}"


_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")


def shared_words(text: str, other: str, limit: int = 3) -> list[str]:
    """The words a recommended paper shares with the tagged paper it is most like (not stop words,
    four letters or more), longest first: the part of its reason that is its own."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    theirs = {word.lower() for word in _WORD.findall(other)}
    found: dict[str, None] = {}
    for word in _WORD.findall(text):
        lowered = word.lower()
        if lowered in theirs and lowered not in ENGLISH_STOP_WORDS:
            found.setdefault(lowered)
    return sorted(found, key=lambda word: (-len(word), word))[:limit]


class NothingToLearn(ValueError):
    """The tag (or library) has no papers that have features."""


def recommend(features: Features, library: Library, tag: str | None = None, k: int = 20,
              allowed: set[str] | None = None) -> tuple[list[Recommendation], dict]:
    """Recommendations for one tag (its papers are the positives) or for the whole library
    (every tagged or liked paper); papers marked not interested are the negatives. Every
    paper in the library is left out; `allowed`, when given, limits the candidates (filters).
    Returns (hits, what the model learned from)."""
    not_interested = library.rated(-1)
    if tag is not None:
        positives = library.tagged(tag)
    else:
        positives = [entry.paper_id for entry in library.entries() if entry.rating > 0 or entry.tags]
    positives = [paper_id for paper_id in positives if paper_id not in set(not_interested)]
    try:
        hits = recommend_rows(features, positives, not_interested, library.seen(), k, allowed)
    except NothingToLearn:
        what = f"tag {tag!r}" if tag is not None else "the library"
        raise NothingToLearn(f"{what} has no papers with features to learn from (tag or like some papers first)") from None
    return hits, {"positives": len(features.rows(positives)), "not_interested": len(features.rows(not_interested)),
                  "tag": tag, "features": features.source}
