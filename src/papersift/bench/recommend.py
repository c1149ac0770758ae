"""`papersift bench recommend`: recommendations for simulated users, papersift's method beside
arxiv-sanity's (tf-idf + linear SVM, its settings) and nearest neighbours on the embeddings.

Topic users: each gold `area · subarea` of the labelled ICLR 2024 papers is a tag. A user has
tagged k of its papers (k = 1, 5, 20) and marked k papers of other subareas "not interested";
the methods rank the rest of the labelled papers (the candidates: every labelled paper the
user has not tagged or marked) and are scored by precision@20 and nDCG@20 against the
subarea's other papers, averaged over subareas with at least k + MIN_LEFT papers and over
several random draws (the same draws for every method). Every method learns over the whole
corpus's features (the data dir's vectors and tf-idf), as it would when serving.

Latency: `recommend_rows` (train, score every paper, re-rank, explain) for a 50-paper tag
with 5 papers marked not interested, over the whole corpus, timed per call (features loaded
once beforehand, as a server holds them).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson

from papersift.library.features import Features, load_features
from papersift.library.recommend import RANKERS, recommend_rows
from papersift.store import Store

KS = (1, 5, 20)
CUTOFF = 20
MIN_LEFT = 10  # a subarea takes part at k when at least k + MIN_LEFT of its papers have features
LATENCY_TAG = 50


def precision_ndcg(ranked: list[bool], relevant_total: int, cutoff: int = CUTOFF) -> tuple[float, float]:
    """precision@cutoff and nDCG@cutoff (binary gains) of one ranking."""
    gains = ranked[:cutoff]
    dcg = sum(1.0 / math.log2(position + 2) for position, hit in enumerate(gains) if hit)
    ideal = sum(1.0 / math.log2(position + 2) for position in range(min(cutoff, relevant_total)))
    return sum(gains) / cutoff, (dcg / ideal if ideal else 0.0)


BOOTSTRAP_RESAMPLES = 2000


def paired_differences(users: str, k: int, scores: dict[str, list], clusters: list[str],
                       metrics: tuple[str, ...], resamples: int = BOOTSTRAP_RESAMPLES) -> list[dict]:
    """papersift minus each baseline, per metric: the mean difference over the same simulated
    users, a 95% interval from a cluster bootstrap (whole clusters resampled: a subarea's draws,
    or a query, are not independent users), and the users won / tied / lost. An interval above
    zero is what "beats" means in the report."""
    if "papersift" not in scores:
        return []
    rng = np.random.default_rng(0)
    names, cluster_of = np.unique(np.asarray(clusters), return_inverse=True)
    counts = np.bincount(cluster_of)
    picks = rng.integers(0, len(names), size=(resamples, len(names)))
    resampled_users = counts[picks].sum(axis=1)
    out = []
    for baseline in (method for method in scores if method != "papersift"):
        differences = np.asarray(scores["papersift"], dtype=float) - np.asarray(scores[baseline], dtype=float)
        row: dict = {"users": users, "k": k, "method": "papersift", "versus": baseline, "clusters": len(names),
                     "simulated_users": len(clusters)}
        for column, metric in enumerate(metrics):
            values = differences[:, column]
            sums = np.bincount(cluster_of, weights=values, minlength=len(names))
            means = sums[picks].sum(axis=1) / resampled_users
            low, high = np.percentile(means, [2.5, 97.5])
            row[metric] = {"difference": round(float(values.mean()), 4), "ci95": [round(float(low), 4), round(float(high), 4)],
                           "won": int((values > 1e-12).sum()), "tied": int((np.abs(values) <= 1e-12).sum()),
                           "lost": int((values < -1e-12).sum())}
        out.append(row)
    return out


def labelled_topics(store: Store, features: Features) -> dict[str, list[int]]:
    """`Area · Subarea` -> feature rows of its papers (papers with a gold subarea and features)."""
    topics: dict[str, list[int]] = defaultdict(list)
    for row in store.read("SELECT id, area, subarea FROM papers WHERE area IS NOT NULL AND subarea IS NOT NULL"
                          " ORDER BY id"):
        if row["id"] in features.row_of:
            topics[f"{row['area']} · {row['subarea']}"].append(features.row_of[row["id"]])
    return dict(topics)


def topic_users(topics: dict[str, list[int]], k: int, draws: int, seed: int = 0):
    """(topic, positive rows, not-interested rows) for each draw of each topic large enough."""
    rng = np.random.default_rng(seed + k)
    everyone = np.array(sorted(row for rows in topics.values() for row in rows))
    for topic, rows in sorted(topics.items()):
        if len(rows) < k + MIN_LEFT:
            continue
        others = np.setdiff1d(everyone, rows)
        for _ in range(draws):
            yield topic, rng.choice(rows, size=k, replace=False), rng.choice(others, size=min(k, len(others)), replace=False)


def run_topic_users(features: Features, topics: dict[str, list[int]], ks=KS, draws: int = 3,
                    methods=tuple(RANKERS), log: Callable[[str], None] = lambda message: None,
                    paired: list[dict] | None = None) -> list[dict]:
    """Rows of mean scores per k and method; `paired`, when given, gets papersift's paired
    differences to each baseline (see `paired_differences`)."""
    labelled = np.array(sorted(row for rows in topics.values() for row in rows))
    topic_of = {row: topic for topic, rows in topics.items() for row in rows}
    rows_out = []
    for k in ks:
        users = list(topic_users(topics, k, draws))
        scores: dict[str, list[tuple[float, float]]] = defaultdict(list)
        seconds: dict[str, float] = defaultdict(float)
        for number, (topic, positives, negatives) in enumerate(users):
            candidates = np.setdiff1d(labelled, np.concatenate([positives, negatives]))
            relevant_total = sum(1 for row in candidates if topic_of[row] == topic)
            for method in methods:
                started = time.perf_counter()
                ranked = RANKERS[method](features, positives, negatives, candidates, CUTOFF, number)
                seconds[method] += time.perf_counter() - started
                scores[method].append(precision_ndcg([topic_of[row] == topic for row in ranked], relevant_total))
            if number % 20 == 0:
                log(f"k={k}: user {number + 1}/{len(users)}")
        topics_used = len({topic for topic, _, _ in users})
        if paired is not None:
            paired += paired_differences("topic", k, scores, [topic for topic, _, _ in users],
                                         ("precision@20", "ndcg@20"))
        for method in methods:
            precision, ndcg = np.mean(scores[method], axis=0) if scores[method] else (0.0, 0.0)
            rows_out.append({"users": "topic", "k": k, "method": method, "precision@20": round(float(precision), 4),
                             "ndcg@20": round(float(ndcg), 4), "subareas": topics_used, "simulated_users": len(users),
                             "ms_per_user": round(1000 * seconds[method] / max(1, len(users)), 1)})
    return rows_out


def measure_latency(features: Features, topics: dict[str, list[int]], repeats: int = 20) -> dict:
    """p50 / p90 of recommend_rows for a LATENCY_TAG-paper tag over the whole corpus."""
    rng = np.random.default_rng(7)
    pool = np.array(sorted(row for rows in topics.values() for row in rows)) if topics else np.arange(len(features))
    timings = []
    for _ in range(repeats):
        chosen = rng.choice(pool, size=min(LATENCY_TAG + 5, len(pool)), replace=False)
        positives = [features.paper_ids[row] for row in chosen[:LATENCY_TAG]]
        negatives = [features.paper_ids[row] for row in chosen[LATENCY_TAG:]]
        started = time.perf_counter()
        recommend_rows(features, positives, negatives, set(positives) | set(negatives), k=20)
        timings.append(1000 * (time.perf_counter() - started))
    return {"tag_papers": LATENCY_TAG, "not_interested": 5, "corpus_papers": len(features), "repeats": repeats,
            "p50_ms": round(float(np.percentile(timings, 50)), 1), "p90_ms": round(float(np.percentile(timings, 90)), 1)}


def run(data_dir: Path, draws: int = 3, ks=KS, methods=tuple(RANKERS),
        log: Callable[[str], None] = lambda message: None, csfcube: Path | None = None,
        csfcube_cache: Path | None = None) -> dict:
    """Topic users over the data dir; with `csfcube` (the shared data's csfcube/ folder), the
    similar-paper users too, over CSFCube's own corpus."""
    started = time.perf_counter()
    csfcube_rows: list[dict] = []
    paired: list[dict] = []
    if csfcube is not None:
        csfcube_rows = run_csfcube_users(csfcube_features(csfcube, csfcube_cache), csfcube, methods, log, paired)
    features = load_features(data_dir, build_missing_tfidf=True)
    load_seconds = time.perf_counter() - started
    log(f"features: {len(features):,} papers ({features.source}) in {load_seconds:.1f} s")
    if features.vectors is None:
        methods = tuple(method for method in methods if method != "knn")
    topics = labelled_topics(Store(data_dir, readonly=True), features)
    if not topics:
        raise ValueError(f"no papers with a gold area and subarea in {data_dir}: the topic users need them")
    topic_paired: list[dict] = []
    rows = run_topic_users(features, topics, ks, draws, methods, log, topic_paired) + csfcube_rows
    latency = measure_latency(features, topics)
    return {"rows": rows, "paired": topic_paired + paired, "latency": latency, "data_dir": str(data_dir), "features": features.source,
            "papers": len(features), "labelled": sum(len(rows) for rows in topics.values()), "draws": draws,
            "feature_load_s": round(load_seconds, 1), "seconds": round(time.perf_counter() - started, 1)}


def markdown(report: dict) -> str:
    lines = ["# bench recommend", "",
             (f"{report['papers']:,} papers ({report['features']}); topic users from {report['labelled']:,} labelled "
             f"ICLR 2024 papers, {report['draws']} draws per subarea."), "",
             "| users | k | method | precision@20 | nDCG@20 | subareas | users | ms / user |",
             "|---|---|---|---|---|---|---|---|"]
    for row in (row for row in report["rows"] if row["users"] == "topic"):
        lines.append(f"| {row['users']} | {row['k']} | {row['method']} | {row['precision@20']:.4f} | {row['ndcg@20']:.4f} "
                     f"| {row['subareas']} | {row['simulated_users']} | {row['ms_per_user']} |")
    csfcube_rows = [row for row in report["rows"] if row["users"] == "csfcube"]
    if csfcube_rows:
        lines += csfcube_markdown(csfcube_rows)
    if report.get("paired"):
        lines += paired_markdown(report["paired"])
    latency = report["latency"]
    lines += ["", (f"Recommendations for a {latency['tag_papers']}-paper tag over {latency['corpus_papers']:,} papers: "
              f"p50 {latency['p50_ms']} ms, p90 {latency['p90_ms']} ms ({latency['repeats']} calls)."), ""]
    return "\n".join(lines)


def paired_markdown(paired: list[dict]) -> list[str]:
    lines = ["", ("papersift minus each baseline on the same users: mean difference [95% cluster-bootstrap interval] "
             "and users won / tied / lost (clusters: subareas, or CSFCube queries):"), "",
             "| users | k | versus | metric | difference | 95% interval | won / tied / lost |", "|---|---|---|---|---|---|---|"]
    for row in paired:
        for metric, value in row.items():
            if isinstance(value, dict):
                low, high = value["ci95"]
                lines.append(f"| {row['users']} | {row['k']} | {row['versus']} | {metric} | {value['difference']:+.4f} "
                             f"| [{low:+.4f}, {high:+.4f}] | {value['won']} / {value['tied']} / {value['lost']} |")
    return lines


# -- similar-paper users: CSFCube ----------------------------------------------------------
CSFCUBE_CUTOFFS = (5, 20)


def graded_ndcg(ranked_gains: list[int], all_gains: list[int], cutoff: int) -> float:
    """nDCG@cutoff with graded (linear) gains, the ideal taken over every judged candidate."""
    dcg = sum(gain / math.log2(position + 2) for position, gain in enumerate(ranked_gains[:cutoff]))
    ideal = sum(gain / math.log2(position + 2) for position, gain in enumerate(sorted(all_gains, reverse=True)[:cutoff]))
    return dcg / ideal if ideal else 0.0


def csfcube_features(folder: Path, cache_dir: Path | None = None) -> Features:
    """CSFCube's corpus as recommendation features: tf-idf computed in memory beside the e5
    vectors `papersift embed --corpus <folder>/corpus.jsonl.gz` wrote (its eval data dir)."""
    from papersift.eval.datasets import read_corpus
    from papersift.eval.runner import corpus_data_dir
    from papersift.index.vectors import VectorIndex, current_generation
    from papersift.library.features import assemble, paper_text, tfidf_matrix
    from papersift.models import DEFAULT_MODEL

    corpus = folder / "corpus.jsonl.gz"
    papers = list(read_corpus(corpus))
    vector_folder = current_generation(corpus_data_dir(corpus, cache_dir), DEFAULT_MODEL)
    if vector_folder is None:
        raise ValueError(f"CSFCube has no vectors yet: run 'papersift embed --corpus {corpus}'"
                         + (f" --cache-dir {cache_dir}" if cache_dir else ""))
    tfidf = tfidf_matrix([paper_text(paper.title, paper.abstract, paper.authors) for paper in papers])[0]
    return assemble([paper.id for paper in papers], tfidf, VectorIndex(vector_folder), "CSFCube: tfidf in memory")


def run_csfcube_users(features: Features, folder: Path, methods=tuple(RANKERS),
                      log: Callable[[str], None] = lambda message: None, paired: list[dict] | None = None) -> list[dict]:
    """Each CSFCube dev query (a paper and a facet) is a user who tagged that one paper; each
    method ranks the query's judged pool (the query paper left out) and is scored by graded
    nDCG and by precision (relevance 2 or 3: "similar" or "identical") at 5 and 20."""
    from papersift.eval.datasets import load_pools, load_qrels

    qrels, pools = load_qrels(folder / "qrels_dev.tsv"), load_pools(folder / "pools_dev.json")
    users = []
    for line in (folder / "queries_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            query = orjson.loads(line)
            users.append((query["_id"], str(query["query_pid"])))
    scores: dict[str, list[list[float]]] = defaultdict(list)
    seconds: dict[str, float] = defaultdict(float)
    used_queries: list[str] = []
    for number, (query_id, query_paper) in enumerate(users):
        judged = qrels.get(query_id, {})
        pool = [paper_id for paper_id in pools.get(query_id, []) if paper_id != query_paper]
        positives, candidates = features.rows([query_paper]), features.rows(pool)
        if not len(positives) or not len(candidates) or not any(judged.values()):
            continue
        used_queries.append(query_id)
        all_gains = [judged.get(paper_id, 0) for paper_id in pool]
        for method in methods:
            started = time.perf_counter()
            ranked = RANKERS[method](features, positives, np.array([], dtype=np.int64), candidates, max(CSFCUBE_CUTOFFS),
                                     number)
            seconds[method] += time.perf_counter() - started
            gains = [judged.get(features.paper_ids[row], 0) for row in ranked]
            scores[method].append([value for cutoff in CSFCUBE_CUTOFFS for value in (
                graded_ndcg(gains, all_gains, cutoff), sum(gain >= 2 for gain in gains[:cutoff]) / cutoff)])
        log(f"csfcube: user {number + 1}/{len(users)}")
    used = len(used_queries)
    if paired is not None:
        paired += paired_differences("csfcube", 1, scores, used_queries,
                                     tuple(f"{name}@{cutoff}" for cutoff in CSFCUBE_CUTOFFS for name in ("ndcg", "precision")))
    rows_out = []
    for method in methods:
        means = np.mean(scores[method], axis=0) if scores[method] else np.zeros(2 * len(CSFCUBE_CUTOFFS))
        row = {"users": "csfcube", "k": 1, "method": method}
        for position, cutoff in enumerate(CSFCUBE_CUTOFFS):
            row[f"ndcg@{cutoff}"] = round(float(means[2 * position]), 4)
            row[f"precision@{cutoff}"] = round(float(means[2 * position + 1]), 4)
        rows_out.append({**row, "queries": used, "simulated_users": used,
                         "ms_per_user": round(1000 * seconds[method] / max(1, used), 1)})
    return rows_out


def csfcube_markdown(rows: list[dict]) -> list[str]:
    lines = ["", ("Similar-paper users (CSFCube dev: each query paper a one-paper tag, its judged pool ranked; "
             "graded nDCG, precision counts relevance 2-3):"), "",
             "| users | k | method | nDCG@5 | nDCG@20 | precision@5 | precision@20 | queries | ms / user |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['users']} | {row['k']} | {row['method']} | {row['ndcg@5']:.4f} | {row['ndcg@20']:.4f} "
                     f"| {row['precision@5']:.4f} | {row['precision@20']:.4f} | {row['queries']} | {row['ms_per_user']} |")
    return lines
