"""papersift bench zhterms: do Chinese ML terms find what their English twins find?

The zhterms set (shared/data/zhterms) asks each of 300 technical terms twice, in Chinese and
in English; a paper is relevant to both when it contains the English term. Every query goes
through SearchService.search with the request /api/search builds (first page of 10, facets
on), so this measures what a user gets, per mode. Reported: MRR@10 and Recall@10 for zh and
en (Recall@10 as the issue counts it: the share of queries with a relevant paper in the top 10,
since a term has up to 400 relevant papers; capped_recall@10, the share of min(relevant, 10)
found, beside it), and zh/en ratios (the issue's bar: both >= 0.9), on the whole set and on its two halves
split by hash of the term id ("A" to develop on, "B" to confirm that a method generalizes).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from papersift.search.types import Mode

K = 10
DEFAULT_DATASET = Path("/work/shared/data/zhterms")


@dataclass(frozen=True, slots=True)
class TermQuery:
    qid: str  # "zh-012" / "en-012"
    term: str  # "012": the term both twins share
    lang: str
    text: str
    term_en: str = ""  # the English term (the qrels' source), for the ceiling's twin check


@dataclass
class ModeResult:
    mode: str
    per_query: dict[str, dict] = field(default_factory=dict)  # qid -> {rr, recall, ms, top, reading}

    def summary(self, queries: Sequence[TermQuery]) -> dict:
        out = {}
        for half in ("all", "A", "B"):
            chosen = [q for q in queries if half == "all" or term_half(q.term) == half]
            row: dict[str, Any] = {}
            for lang in ("zh", "en"):
                scored = [self.per_query[q.qid] for q in chosen if q.lang == lang and q.qid in self.per_query]
                n = len(scored) or 1
                row[lang] = {"mrr@10": sum(s["rr"] for s in scored) / n, "recall@10": sum(s["rr"] > 0 for s in scored) / n,
                             "capped_recall@10": sum(s["recall"] for s in scored) / n, "queries": len(scored)}
            row["ratio_mrr"] = _ratio(row["zh"]["mrr@10"], row["en"]["mrr@10"])
            row["ratio_recall"] = _ratio(row["zh"]["recall@10"], row["en"]["recall@10"])
            out[half] = row
        zh_ms = sorted(s["ms"] for qid, s in self.per_query.items() if qid.startswith("zh"))
        en_ms = sorted(s["ms"] for qid, s in self.per_query.items() if qid.startswith("en"))
        out["latency_ms"] = {"zh": _percentiles(zh_ms), "en": _percentiles(en_ms)}
        return out


def term_half(term: str) -> str:
    """A fixed split of the terms: "A" (develop) or "B" (confirm), by sha1 of the term id."""
    return "A" if int(hashlib.sha1(f"zhterms:{term}".encode()).hexdigest(), 16) % 2 == 0 else "B"


def load(dataset: Path) -> tuple[list[TermQuery], dict[str, set[str]]]:
    queries = []
    for line in (dataset / "queries_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            queries.append(TermQuery(row["_id"], row["_id"].split("-", 1)[1], row["lang"], row["text"],
                                     row.get("term_en", "")))
    qrels: dict[str, set[str]] = defaultdict(set)
    for line in (dataset / "qrels_dev.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        if int(score) > 0:
            qrels[qid].add(doc)
    return queries, dict(qrels)


def run(data_dir: Path, modes: Sequence[Mode], dataset: Path = DEFAULT_DATASET, half: str = "all",
        log: Callable[[str], None] = lambda _: None, traditional: bool = False) -> dict:
    """Every query through SearchService.search; `traditional`: the Chinese queries written in
    traditional characters first (OpenCC s2t, search/zhnorm.py), as a Taiwan or Hong Kong reader
    may type them."""
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest
    from papersift.search.zhnorm import traditional as in_traditional

    queries, qrels = load(dataset)
    if half != "all":
        queries = [q for q in queries if term_half(q.term) == half]
    if traditional:
        queries = [replace(q, text=in_traditional(q.text)) if q.lang == "zh" else q for q in queries]
    service = SearchService(data_dir)
    results = {}
    for mode in modes:
        result = ModeResult(mode)
        for query in queries:
            started = time.perf_counter()
            response = service.search(SearchRequest(query=query.text, mode=mode, size=K))
            ms = (time.perf_counter() - started) * 1000
            ranked = [hit.paper.id for hit in response.hits]
            relevant = qrels.get(query.qid, set())
            rank = next((at for at, pid in enumerate(ranked, 1) if pid in relevant), None)
            reading = getattr(response, "reading", None)
            result.per_query[query.qid] = {
                "rr": 1 / rank if rank else 0.0, "recall": len(relevant & set(ranked)) / max(min(len(relevant), K), 1),
                "ms": ms, "text": query.text, "english": reading.english if reading is not None else None,
                "term_en": query.term_en, "terms": _terms(reading), "notices": [str(n) for n in response.notices]}
        results[mode] = result
        log(f"{mode}: done")
    summaries = {mode: result.summary(queries) for mode, result in results.items()}
    return {"data_dir": str(data_dir), "dataset": str(dataset), "half": half, "k": K, "traditional": traditional,
            "modes": summaries, "shown_sure": {mode: shown_sure(result, queries) for mode, result in results.items()},
            "per_query": {mode: result.per_query for mode, result in results.items()}}


def _terms(reading) -> list[dict]:
    """A response's reading, term by term: what was read, from where, how sure."""
    return [{"chinese": term.chinese, "english": term.english, "source": term.source,
             "confidence": term.confidence, "shown_sure": term.shown_sure}
            for term in (reading.terms if reading is not None else ())]


def same_term(read: str, english: str) -> bool:
    """Whether a reading is the English term in a form papers use: the same analyzed words
    ("graph neural network" for "Graph Neural Networks"), or the same once spaces and hyphens
    go ("multilayer perceptron" for "Multi-Layer Perceptron", "backpropagation" for "Back
    Propagation")."""
    from papersift.index.termlexicon import analyzed

    read_key, key = analyzed(read), analyzed(english)
    if not key:
        return False
    letters = ["".join(ch for ch in text.lower() if ch.isalnum()) for text in (read, english)]
    return read_key == key or read_key.replace(" ", "") == key.replace(" ", "") or letters[0] == letters[1]


def shown_sure(result: ModeResult, queries: Sequence[TermQuery]) -> dict:
    """Of the Chinese terms whose reading was shown as sure (every term of the query's reading
    sure), the share read as the English term (same analyzed words: "graph neural networks" is
    "graph neural network", see `same_term`), per half and per source of the reading."""
    out: dict[str, Any] = {}
    for half in ("all", "A", "B"):
        shown = right = 0
        by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        chosen = [q for q in queries if q.lang == "zh" and (half == "all" or term_half(q.term) == half)]
        for query in chosen:
            row = result.per_query.get(query.qid) or {}
            terms = row.get("terms") or []
            if not terms or not all(term["shown_sure"] for term in terms):
                continue
            ok = same_term(row.get("english") or "", query.term_en)
            shown, right = shown + 1, right + ok
            source = "+".join(sorted({term["source"] for term in terms}))
            by_source[source][0] += 1
            by_source[source][1] += ok
        out[half] = {"terms": len(chosen), "shown_sure": shown, "right": right,
                     "precision": right / shown if shown else 0.0,
                     "by_source": {source: {"shown_sure": n, "right": r} for source, (n, r) in by_source.items()}}
    return out


CEILING_NEIGHBOURS = (5, 20, 100)


def ceiling(data_dir: Path, dataset: Path = DEFAULT_DATASET, neighbours: Sequence[int] = CEILING_NEIGHBOURS,
            log: Callable[[str], None] = lambda _: None) -> dict:
    """How far a better choice among the readings papersift can produce would get (keyword mode).

    For each Chinese term, the candidate readings are the composition's (search/termlexicon.py:
    the reading and its alternatives) and the k phrases nearest to the term by the phrase
    vectors (search/phrasebridge.py). Per k, two upper bounds: the share of terms whose English
    twin (same analyzed key as `term_en`) is among the candidates, and the MRR@10 of an oracle
    that searches every candidate and keeps the best (it reads the qrels: no real rule can do
    better with these candidates). A reading rule can only reach the 0.9 bar if the oracle can.
    """
    from papersift.index.termlexicon import analyzed
    from papersift.search.phrasebridge import phrase_bridge_for
    from papersift.search.service import SearchService
    from papersift.search.termlexicon import lexicon_for
    from papersift.search.types import SearchRequest

    queries, qrels = load(dataset)
    lexicon, bridge = lexicon_for(data_dir), phrase_bridge_for(data_dir)
    if lexicon is None:
        raise ValueError(f"no term lexicon in {data_dir}: run `papersift index --data-dir {data_dir}`")
    service = SearchService(data_dir)
    twins = {q.qid: q for q in queries}
    scored: dict[tuple[str, str], float] = {}

    def reciprocal_rank(text: str, qid: str) -> float:
        if (text, qid) not in scored:
            hits = service.search(SearchRequest(query=text, mode="keyword", size=K)).hits
            relevant = qrels.get(qid, set())
            rank = next((at for at, hit in enumerate(hits, 1) if hit.paper.id in relevant), None)
            scored[text, qid] = 1 / rank if rank else 0.0
        return scored[text, qid]

    rows = []
    for query in (q for q in queries if q.lang == "zh"):
        english = twins.get(f"en-{query.term}")
        reading = lexicon.read(query.text)
        composed = [reading.english, *(alt for term in reading.terms for alt in term.alternatives)] if reading else []
        token = "".join(query.text.split())
        near = [] if bridge is None else [
            found[0] for found in (lexicon.phrase(n.key) for n in bridge.neighbours(token, max(neighbours))) if found]
        twin = analyzed(query.term_en or (english.text if english else ""))
        row: dict[str, Any] = {"qid": query.qid, "half": term_half(query.term),
               "en_rr": reciprocal_rank(english.text, english.qid) if english else 0.0}
        for k in (0, *neighbours):
            candidates = [text for text in dict.fromkeys([*composed, *near[:k]]) if text]
            row[f"twin@{k}"] = any(analyzed(text) == twin for text in candidates)
            row[f"oracle@{k}"] = max((reciprocal_rank(text, query.qid) for text in candidates), default=0.0)
        rows.append(row)
    log(f"ceiling: {len(rows)} terms, {len(scored)} searches")
    summary = {}
    for half in ("all", "A", "B"):
        chosen = [row for row in rows if half == "all" or row["half"] == half]
        n = len(chosen) or 1
        en = sum(row["en_rr"] for row in chosen) / n
        summary[half] = {"terms": len(chosen), "en_mrr@10": en, "by_neighbours": {
            str(k): {"twin_among_candidates": sum(row[f"twin@{k}"] for row in chosen) / n,
                     "oracle_mrr@10": (oracle := sum(row[f"oracle@{k}"] for row in chosen) / n),
                     "oracle_ratio": _ratio(oracle, en)} for k in (0, *neighbours)}}
    return {"data_dir": str(data_dir), "dataset": str(dataset), "phrase_vectors": bridge is not None,
            "summary": summary, "per_term": rows}


def ceiling_markdown(report: dict) -> str:
    lines = ["| half | nearest phrases | twin among candidates | oracle zh MRR@10 | en MRR@10 | oracle ratio |",
             "|---|---|---|---|---|---|"]
    for half, row in report["summary"].items():
        for k, figures in row["by_neighbours"].items():
            lines.append(f"| {half} | {k} | {figures['twin_among_candidates']:.2f} | {figures['oracle_mrr@10']:.3f} "
                         f"| {row['en_mrr@10']:.3f} | {figures['oracle_ratio']:.2f} |")
    return "\n".join(lines)


def markdown(report: dict) -> str:
    lines = ["| mode | half | zh MRR@10 | en MRR@10 | ratio | zh R@10 | en R@10 | ratio | zh p50 / p99 ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for mode, summary in report["modes"].items():
        for half in ("all", "A", "B"):
            row = summary[half]
            if not row["zh"]["queries"]:
                continue
            latency = summary["latency_ms"]["zh"]
            lines.append(f"| {mode} | {half} | {row['zh']['mrr@10']:.3f} | {row['en']['mrr@10']:.3f} | {row['ratio_mrr']:.2f} "
                         f"| {row['zh']['recall@10']:.3f} | {row['en']['recall@10']:.3f} | {row['ratio_recall']:.2f} "
                         f"| {latency['p50']:.1f} / {latency['p99']:.1f} |")
    lines += ["", "Readings shown as sure (zh): right / shown of all terms, precision",
              "", "| mode | half | shown sure | right | of terms | precision |", "|---|---|---|---|---|---|"]
    for mode, halves in report.get("shown_sure", {}).items():
        for half, row in halves.items():
            lines.append(f"| {mode} | {half} | {row['shown_sure']} | {row['right']} | {row['terms']} "
                         f"| {row['precision']:.2f} |")
    return "\n".join(lines)


def _ratio(zh: float, en: float) -> float:
    return zh / en if en else 0.0


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": 0.0, "p99": 0.0}
    return {"p50": values[len(values) // 2], "p99": values[min(len(values) - 1, int(len(values) * 0.99))]}
