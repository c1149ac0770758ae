"""papersift bench nav: does a query that names a paper or a person find it, in every mode?

A navigational set drawn from the data dir's own store with a fixed seed (SEED), so the same
store gives the same set (it is written into the report):

- titles as typed (the stored title) and lower-cased titles: the relevant papers are every
  paper with that title (case, accents and punctuation aside: the store's dedupe key);
- authors with MIN_PAPERS..MAX_PAGES papers (the identities `papersift authors build`
  assigns, or exact spellings before it has run), asked by their most used spelling: the
  relevant papers are that person's;
- pasted ids: papersift ids, OpenReview forum ids, landing-page and PDF URLs as stored,
  arXiv ids and DOIs of the papers that carry one: the relevant paper is that one;
- ids no paper here has (arXiv ids drawn at random): right when there are no hits and the
  response says the id is unknown.

Every query goes through SearchService.search with the request /api/search builds
(typed_request, first page of 10, facets on). Reported per mode: MRR@10 for titles,
P@10 for authors (the share of the first min(10, n) hits that are the person's), hit@1 for
ids, the share of unknown ids answered right, and p50/p99 latency.
"""

from __future__ import annotations

import random
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from papersift.search.types import Mode

SEED = 20261201
K = 10
TITLES = 150
AUTHORS = 150
IDS_PER_KIND = {"papersift": 20, "openreview": 15, "landing_url": 10, "pdf_url": 10, "arxiv": 10, "doi": 5}
UNKNOWN_IDS = 10
MIN_PAPERS, MAX_PAPERS = 5, 60


def build_set(data_dir: Path, seed: int = SEED) -> list[dict]:
    """The navigational queries: [{kind, text, relevant: [paper ids]}], drawn from the store."""
    from papersift.record import normalize_title
    from papersift.search.intent import ids_in_url
    from papersift.store import Store

    rng = random.Random(seed)
    store = Store(data_dir, readonly=True)
    try:
        rows = store.read("SELECT id, title, url, pdf, dedupe_key FROM papers ORDER BY id")
        by_title: dict[str, list[str]] = defaultdict(list)
        for row in rows:
            by_title[normalize_title(row["title"])].append(row["id"])
        titled = [row for row in rows if len(normalize_title(row["title"]).split()) >= 2]
        picked = rng.sample(titled, TITLES * 2)
        queries = [{"kind": "title", "text": row["title"], "relevant": by_title[normalize_title(row["title"])]}
                   for row in picked[:TITLES]]
        queries += [{"kind": "title_lc", "text": row["title"].lower(),
                     "relevant": by_title[normalize_title(row["title"])]} for row in picked[TITLES:]]
        queries += _author_queries(store, rng)
        queries += _id_queries(rows, rng, ids_in_url)
        for _ in range(UNKNOWN_IDS):
            queries.append({"kind": "unknown_id", "text": f"{rng.randint(1501, 2512)}.{rng.randint(0, 99999):05d}",
                            "relevant": []})
    finally:
        store.close()
    return queries


def _author_queries(store, rng: random.Random) -> list[dict]:
    identified = store.read("SELECT 1 FROM paper_authors WHERE author_id IS NOT NULL LIMIT 1")
    column = "author_id" if identified else "name_key"
    people = store.read(f"SELECT {column} AS who, COUNT(DISTINCT paper_id) AS n FROM paper_authors"
                        f" WHERE {column} IS NOT NULL GROUP BY {column} HAVING n BETWEEN ? AND ? ORDER BY {column}",
                        (MIN_PAPERS, MAX_PAPERS))
    queries = []
    for person in rng.sample(people, min(AUTHORS, len(people))):
        spelling = store.read(f"SELECT name, COUNT(*) AS n FROM paper_authors WHERE {column}=? GROUP BY name"
                              " ORDER BY n DESC, name LIMIT 1", (person["who"],))[0]["name"]
        papers = [row[0] for row in store.read(f"SELECT DISTINCT paper_id FROM paper_authors WHERE {column}=?",
                                               (person["who"],))]
        queries.append({"kind": "author", "text": spelling, "relevant": papers, "person": person["who"]})
    return queries


def _id_queries(rows, rng: random.Random, ids_in_url: Callable) -> list[dict]:
    candidates: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in rows:
        candidates["papersift"].append((row["id"], row["id"]))
        for field, kind in (("url", "landing_url"), ("pdf", "pdf_url")):
            if row[field]:
                candidates[kind].append((row[field], row["id"]))
                for id_kind, value in ids_in_url(row[field]):
                    if field == "url" or id_kind != "openreview":
                        candidates[id_kind].append((value, row["id"]))
    queries = []
    for kind, count in IDS_PER_KIND.items():
        pool = sorted(set(candidates.get(kind, [])))
        for text, paper_id in rng.sample(pool, min(count, len(pool))):
            queries.append({"kind": "id", "id_kind": kind, "text": text, "relevant": [paper_id]})
    return queries


def run(data_dir: Path, modes: Sequence[Mode], seed: int = SEED, log: Callable[[str], None] = lambda _: None) -> dict:
    from papersift.search.service import SearchService
    from papersift.search.types import typed_request

    queries = build_set(data_dir, seed)
    service = SearchService(data_dir)
    per_mode: dict[str, list[dict]] = {}
    for mode in modes:
        results = []
        for query in queries:
            started = time.perf_counter()
            response = service.search(typed_request(query["text"], mode, size=K))
            ms = (time.perf_counter() - started) * 1000
            ranked = [hit.paper.id for hit in response.hits]
            results.append({"ms": ms, "ranked": ranked, "total": response.total,
                            "unknown": any(getattr(n, "code", "") == "unknown_id" for n in response.notices)})
        per_mode[mode] = results
        log(f"{mode}: {len(queries)} queries")
    summary = {mode: summarize(queries, results) for mode, results in per_mode.items()}
    counts: dict[str, int] = defaultdict(int)
    for query in queries:
        counts[query["kind"]] += 1
    return {"data_dir": str(data_dir), "seed": seed, "k": K, "queries": dict(counts), "modes": summary,
            "set": queries, "ranked": {mode: [r["ranked"] for r in results] for mode, results in per_mode.items()}}


def summarize(queries: Sequence[dict], results: Sequence[dict]) -> dict:
    scores: dict[str, list[float]] = defaultdict(list)
    for query, result in zip(queries, results):
        relevant, ranked = set(query["relevant"]), result["ranked"]
        kind = query["kind"]
        if kind in ("title", "title_lc"):
            rank = next((at for at, paper_id in enumerate(ranked, 1) if paper_id in relevant), None)
            scores[f"{kind}_mrr@10"].append(1 / rank if rank else 0.0)
        elif kind == "author":
            wanted = min(K, len(relevant))
            scores["author_p@10"].append(sum(paper_id in relevant for paper_id in ranked[:wanted]) / wanted)
        elif kind == "id":
            hit = bool(ranked) and ranked[0] in relevant
            scores["id_hit@1"].append(float(hit))
            scores[f"id_hit@1:{query['id_kind']}"].append(float(hit))
        elif kind == "unknown_id":
            scores["unknown_id_said"].append(float(result["total"] == 0 and result["unknown"]))
    out: dict[str, float | dict] = {name: sum(values) / len(values) for name, values in sorted(scores.items())}
    times = sorted(result["ms"] for result in results)
    out["latency_ms"] = {"p50": times[len(times) // 2], "p99": times[min(len(times) - 1, int(len(times) * 0.99))]}
    return out


def markdown(report: dict) -> str:
    modes = list(report["modes"])
    metrics = [name for name in next(iter(report["modes"].values())) if name != "latency_ms"] if modes else []
    lines = [f"# bench nav ({report['data_dir']}, seed {report['seed']})", "",
             "Queries: " + ", ".join(f"{kind} {count}" for kind, count in report["queries"].items()), "",
             "| metric | " + " | ".join(modes) + " |", "|---|" + "---:|" * len(modes)]
    for name in metrics:
        lines.append(f"| {name} | " + " | ".join(f"{report['modes'][mode][name]:.3f}" for mode in modes) + " |")
    lines.append("| latency p50 / p99 ms | " + " | ".join(
        f"{report['modes'][mode]['latency_ms']['p50']:.0f} / {report['modes'][mode]['latency_ms']['p99']:.0f}"
        for mode in modes) + " |")
    misses = []
    for mode in modes:
        for query, ranked in zip(report["set"], report["ranked"][mode]):
            if query["kind"] in ("title", "title_lc", "id") and (not ranked or ranked[0] not in query["relevant"]):
                misses.append(f"- {mode} {query['kind']}: {re.sub(r'[|]', '/', query['text'])[:90]}")
    if misses:
        lines += ["", f"Not first ({len(misses)}):", *misses[:40]]
    return "\n".join(lines) + "\n"
