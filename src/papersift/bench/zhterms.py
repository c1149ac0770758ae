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
from dataclasses import dataclass, field
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
            queries.append(TermQuery(row["_id"], row["_id"].split("-", 1)[1], row["lang"], row["text"]))
    qrels: dict[str, set[str]] = defaultdict(set)
    for line in (dataset / "qrels_dev.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        if int(score) > 0:
            qrels[qid].add(doc)
    return queries, dict(qrels)


def run(data_dir: Path, modes: Sequence[Mode], dataset: Path = DEFAULT_DATASET, half: str = "all",
        log: Callable[[str], None] = lambda _: None) -> dict:
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    queries, qrels = load(dataset)
    if half != "all":
        queries = [q for q in queries if term_half(q.term) == half]
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
                "notices": [str(n) for n in response.notices]}
        results[mode] = result
        log(f"{mode}: done")
    summaries = {mode: result.summary(queries) for mode, result in results.items()}
    return {"data_dir": str(data_dir), "dataset": str(dataset), "half": half, "k": K, "modes": summaries,
            "per_query": {mode: result.per_query for mode, result in results.items()}}


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
    return "\n".join(lines)


def _ratio(zh: float, en: float) -> float:
    return zh / en if en else 0.0


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": 0.0, "p99": 0.0}
    return {"p50": values[len(values) // 2], "p99": values[min(len(values) - 1, int(len(values) * 0.99))]}
