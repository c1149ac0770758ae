"""Training the learned ranker from the corpus alone (`papersift rank train`, issue 31).

No click logs exist, but the papers provide queries with known answers (pseudo-queries):
- a title → its paper;
- a sentence of the abstract → its paper, as written and without the title's words (how people
  describe a paper they remember), and 3-6 words in a row of one (a half-remembered phrase);
- the abstract's rarest words (its key terms) → its paper;
- an author's name as written → every paper listing that name;
- a glossary term (search/glossary.py), in English and in Chinese → every paper whose title or
  abstract has the English term as a phrase.
Papers are split by a hash of their id: the queries of one paper in five are held back and
only measured (the model against the fusion's order and against BM25 alone over the same
candidates). Each query runs through the hybrid retriever as a page's would (search/hybrid.py
`signals`), its candidates get their features (search/rank_features.py), and LightGBM's
lambdarank learns an order from them in ROUNDS rounds.
No benchmark's queries are read here.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from papersift.index.analyzers import ENGLISH, has_cjk, terms
from papersift.record import Paper
from papersift.search import glossary as glossary_module
from papersift.search.query import natural_text_query, parse_query
from papersift.search.rank_features import FEATURE_VERSION, FEATURES, candidates, feature_matrix
from papersift.search.ranker import model_paths
from papersift.search.types import SearchRequest
from papersift.store import Store

KINDS = ("title", "sentence", "sentence_no_title", "snippet", "key_terms", "author", "glossary")
SHARES = {"title": 0.1, "sentence": 0.15, "sentence_no_title": 0.2, "snippet": 0.2, "key_terms": 0.15, "author": 0.05,
          "glossary": 0.15}
HELD_BACK = 5  # one paper in five: its queries are measured, never trained on
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
ROUNDS = 200
PARAMS = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "learning_rate": 0.05, "num_leaves": 31,
          "min_data_in_leaf": 50, "feature_fraction": 0.9, "lambdarank_truncation_level": 30, "seed": 20261201,
          "deterministic": True, "force_row_wise": True, "verbose": -1}


@dataclass(frozen=True, slots=True)
class PseudoQuery:
    kind: str
    text: str
    relevant: frozenset[str]
    held_back: bool


@dataclass
class TrainReport:
    queries: dict[str, int] = field(default_factory=dict)  # kind -> queries with a relevant candidate
    dropped: int = 0  # queries whose answer no retriever put among the candidates
    held_back: dict[str, dict[str, float]] = field(default_factory=dict)  # ranking -> MRR@10 (all, per kind)
    rounds: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"queries": self.queries, "dropped": self.dropped, "held_back_mrr10": self.held_back,
                "rounds": self.rounds, "seconds": round(self.seconds, 1)}


def held_back(paper_id: str) -> bool:
    return int(hashlib.sha256(paper_id.encode()).hexdigest()[:8], 16) % HELD_BACK == 0


def _sentences(abstract: str) -> list[str]:
    return [sentence for sentence in _SENTENCE.split(abstract) if 6 <= len(sentence.split()) <= 40]


def pseudo_queries(papers: list[Paper], count: int, seed: int, doc_freq: Callable[[str], int],
                   phrase_papers: Callable[[str], list[str]] | None = None,
                   glossary_pairs: Iterable[tuple[str, str]] = ()) -> list[PseudoQuery]:
    """About `count` queries with their answers, drawn from the papers (see the module doc)."""
    rng = random.Random(seed)
    by_name: dict[str, set[str]] = {}
    for paper in papers:
        for name in paper.authors:
            by_name.setdefault(name, set()).add(paper.id)
    shuffled = papers[:]
    rng.shuffle(shuffled)
    made: list[PseudoQuery] = []
    wanted = {kind: round(count * share) for kind, share in SHARES.items()}
    for kind in KINDS[:-1]:
        made.extend(_paper_queries(kind, shuffled, wanted[kind], rng, doc_freq, by_name))
    if phrase_papers is not None:
        made.extend(_glossary_queries(list(glossary_pairs), wanted["glossary"], rng, phrase_papers))
    return made


def _paper_queries(kind: str, papers: list[Paper], wanted: int, rng: random.Random,
                   doc_freq: Callable[[str], int], by_name: dict[str, set[str]]) -> list[PseudoQuery]:
    made: list[PseudoQuery] = []
    for paper in rng.sample(papers, len(papers)):
        if len(made) >= wanted:
            break
        text, relevant = _paper_query(kind, paper, rng, doc_freq, by_name)
        if text and not has_cjk(text):
            made.append(PseudoQuery(kind, text, frozenset(relevant), held_back(paper.id)))
    return made


def _paper_query(kind: str, paper: Paper, rng: random.Random, doc_freq: Callable[[str], int],
                 by_name: dict[str, set[str]]) -> tuple[str, set[str]]:
    own = {paper.id}
    if kind == "title":
        return paper.title, own
    if kind == "author":
        names = [name for name in paper.authors if 2 <= len(by_name.get(name, ())) <= 40]
        if not names:
            return "", own
        name = rng.choice(names)
        return name, by_name[name]
    sentences = _sentences(paper.abstract or "")
    if kind == "key_terms":
        words = list(dict.fromkeys(word for word in re.findall(r"[A-Za-z][A-Za-z-]{3,}", paper.abstract or "")))
        rare = [word for word in words if 2 <= doc_freq(terms(word, ENGLISH)[0] if terms(word, ENGLISH) else "") <= 2000]
        rare.sort(key=lambda word: doc_freq(terms(word, ENGLISH)[0]))
        chosen = rare[:rng.randint(3, 5)]
        rng.shuffle(chosen)
        return (" ".join(chosen) if len(chosen) >= 3 else ""), own
    if not sentences:
        return "", own
    sentence = rng.choice(sentences)
    if kind == "sentence":
        return sentence, own
    if kind == "snippet":  # a few words in a row, as someone half remembers a paper
        words = sentence.split()
        size = rng.randint(3, 6)
        start = rng.randrange(0, len(words) - size + 1)
        return " ".join(words[start:start + size]), own
    title_terms = set(terms(paper.title, ENGLISH))
    kept = [word for word in sentence.split() if not (set(terms(word, ENGLISH)) & title_terms)]
    return (" ".join(kept) if len(kept) >= 5 else ""), own


def _glossary_queries(pairs: list[tuple[str, str]], wanted: int, rng: random.Random,
                      phrase_papers: Callable[[str], list[str]]) -> list[PseudoQuery]:
    """Glossary terms (the Chinese and the English of one entry) → papers using the English term."""
    made: list[PseudoQuery] = []
    for chinese, english in rng.sample(pairs, len(pairs)):
        if len(made) >= wanted:
            break
        relevant = phrase_papers(english)
        if not 3 <= len(relevant) <= 300:
            continue
        back = held_back(english)
        made.append(PseudoQuery("glossary", english, frozenset(relevant), back))
        if chinese and len(made) < wanted:
            made.append(PseudoQuery("glossary", chinese, frozenset(relevant), back))
    return made


def glossary_pairs() -> list[tuple[str, str]]:
    """(Chinese, English) of each glossary entry with an English term of 1-4 words."""
    entries = glossary_module.read_entries(glossary_module.glossary_path())
    return [(entry.zh, entry.en) for entry in entries if 1 <= len(entry.en.split()) <= 4]


def mrr10(order: list[int], labels: np.ndarray) -> float:
    for rank, row in enumerate(order[:10], 1):
        if labels[row] > 0:
            return 1.0 / rank
    return 0.0


@dataclass
class _Group:
    query: PseudoQuery
    features: np.ndarray
    labels: np.ndarray


def collect(queries: list[PseudoQuery], retriever, backend,
            progress: Callable[[int], None] | None = None) -> tuple[list[_Group], int]:
    """Each query's candidates with features and labels; queries whose answer is not among the
    candidates are dropped (counted)."""
    groups: list[_Group] = []
    dropped = 0
    documents = backend.document_count()
    for query in queries:
        request = SearchRequest(query=query.text, mode="hybrid", with_facets=False)
        signals = retriever.signals(request, natural_text_query(query.text))
        ids = candidates(signals)
        labels = np.array([1.0 if paper_id in query.relevant else 0.0 for paper_id in ids])
        if progress:
            progress(1)
        if not labels.any():
            dropped += 1
            continue
        found = backend.search(natural_text_query(""), "relevance", 0, len(ids), with_facets=False,
                               with_papers=True, candidate_ids=ids)
        papers = {paper.id: paper for paper in found.papers}
        groups.append(_Group(query, feature_matrix(signals, ids, papers, backend.term_doc_freq, documents), labels))
    return groups, dropped


def fit(groups: list[_Group], rounds: int = ROUNDS, seed: int = 20261201):
    """A lambdarank booster of a fixed number of rounds. (Stopping early on a tenth of the
    groups stopped at 5 trees in the first attempt: copied-text pseudo-queries saturate
    nDCG@10 at once; docs/experiments/2026-12-01-learned-ranker.md.)"""
    import lightgbm

    data = lightgbm.Dataset(np.vstack([group.features for group in groups]),
                            np.concatenate([group.labels for group in groups]),
                            group=[len(group.labels) for group in groups], feature_name=list(FEATURES))
    params = {**PARAMS, "seed": seed, "num_threads": 1}  # OpenMP threads spin on a shared machine
    return lightgbm.train(params, data, num_boost_round=rounds)


def measure(booster, groups: list[_Group]) -> dict[str, dict[str, float]]:
    """Held-back MRR@10 of the model, of the fusion's order and of BM25 alone over the same
    candidates: all queries and per kind."""
    lexical = FEATURES.index("lexical_rank")
    rankings: dict[str, Callable[[_Group], list[int]]] = {
        "learned": lambda group: _by(-booster.predict(group.features, num_threads=1)),
        "fusion": lambda group: list(range(len(group.labels))),  # candidates come in fused order
        "bm25": lambda group: _by(group.features[:, lexical]),
    }
    figures: dict[str, dict[str, float]] = {}
    for name, ranking in rankings.items():
        values: dict[str, list[float]] = {}
        for group in groups:
            value = mrr10(ranking(group), group.labels)
            values.setdefault("all", []).append(value)
            values.setdefault(group.query.kind, []).append(value)
        figures[name] = {kind: round(float(np.mean(found)), 4) for kind, found in values.items()}
    return figures


def _by(keys: np.ndarray) -> list[int]:
    return sorted(range(len(keys)), key=lambda row: (float(keys[row]), row))


def draw(data_dir: str | Path, backend, count: int, seed: int,
         glossary: list[tuple[str, str]] | None = None) -> list[PseudoQuery]:
    """About `count` pseudo-queries from the data dir's store (glossary: the packaged one)."""
    store = Store(data_dir, readonly=True)
    try:
        papers = [paper for _, paper in store.iter_papers()]
    finally:
        store.close()

    def phrase_papers(english: str) -> list[str]:
        words = " ".join(re.findall(r"[^\W_]+", english))
        if not words:
            return []
        result = backend.search(parse_query(f'"{words}"'), "relevance", 0, 301, with_facets=False)
        return list(result.paper_ids) if result.total <= 300 else []  # too common a term: not drawn

    return pseudo_queries(papers, count, seed, backend.term_doc_freq, phrase_papers,
                          glossary_pairs() if glossary is None else glossary)


def learn(groups: list[_Group], dropped: int, seed: int) -> tuple[object, TrainReport]:
    """A booster from the training groups, measured on the held-back ones."""
    report = TrainReport(dropped=dropped)
    for group in groups:
        report.queries[group.query.kind] = report.queries.get(group.query.kind, 0) + 1
    trained = [group for group in groups if not group.query.held_back]
    measured = [group for group in groups if group.query.held_back]
    if len(trained) < 20 or not measured:
        raise ValueError(f"too few pseudo-queries to train on ({len(trained)} trained, {len(measured)} held back): "
                         "the corpus is too small")
    booster = fit(trained, seed=seed)
    report.rounds = booster.current_iteration()
    report.held_back = measure(booster, measured)
    return booster, report


def train(data_dir: str | Path, retriever, backend, count: int = 2000, seed: int = 1,
          glossary: list[tuple[str, str]] | None = None, activate: bool = False,
          progress: Callable[[int], None] | None = None) -> TrainReport:
    """Draw pseudo-queries from the data dir's store, learn a ranker and write it beside the
    index (search/ranker.py reads it). Returns what was trained on and the held-back figures."""
    started = time.perf_counter()
    groups, dropped = collect(draw(data_dir, backend, count, seed, glossary), retriever, backend, progress)
    booster, report = learn(groups, dropped, seed)
    report.seconds = time.perf_counter() - started
    _write(data_dir, booster, {"active": activate, "feature_version": FEATURE_VERSION, "features": list(FEATURES),
                               "papers": backend.document_count(), "lexical_generation": _generation(data_dir),
                               "seed": seed, "trained_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               **report.to_dict()})
    return report


def _generation(data_dir: str | Path) -> str | None:
    current = Path(data_dir) / "lexical" / "CURRENT"
    return current.read_text().strip() if current.exists() else None


def _write(data_dir: str | Path, booster, meta: dict) -> None:
    """Model first, then its description, each replaced whole (a reader sees old or new)."""
    model_path, meta_path = model_paths(data_dir)
    model_path.parent.mkdir(parents=True, exist_ok=True)
    for path, data in ((model_path, booster.model_to_string().encode()),
                       (meta_path, orjson.dumps(meta, option=orjson.OPT_INDENT_2))):
        partial = path.with_suffix(path.suffix + ".partial")
        partial.write_bytes(data)
        os.replace(partial, path)
