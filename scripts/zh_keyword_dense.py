"""Would keyword mode gain from the multilingual embedding of a Chinese query, and at what cost?

`measure`: for each Chinese query of a zhterms half, keyword mode's ranking, the e5 and the
static (first-pass) dense rankings (200 deep) and whether its reading is shown as sure; then
MRR@10 and success@10 of keyword alone, each dense side alone, and keyword fused with a dense
side (z-scores, search/fusion.py zscore_sum) at a few weights, for guessed readings only or all.

`cost`: in a fresh process (as the CLI is), a keyword search of QUERY, then one dense retrieval
(none, static or e5): wall and CPU seconds of each.

Usage: python scripts/zh_keyword_dense.py measure DATA_DIR [--half A|B|all]
       python scripts/zh_keyword_dense.py cost DATA_DIR none|static|e5 QUERY
(docs/crosslingual.md, "Compound spellings and the reading's weight in hybrid")
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5)
DEPTH = 200


def measure(data_dir: Path, half: str) -> None:
    from papersift.bench import zhterms
    from papersift.models import STATIC_MODEL
    from papersift.search.fusion import zscore_sum
    from papersift.search.query import parse_query
    from papersift.search.semantic import DenseRetriever
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    queries, qrels = zhterms.load(zhterms.DEFAULT_DATASET)
    queries = [q for q in queries if q.lang == "zh" and half in ("all", zhterms.term_half(q.term))]
    service = SearchService(data_dir)
    dense = {"e5": DenseRetriever(data_dir, service), "static": DenseRetriever(data_dir, service, model=STATIC_MODEL)}
    rows = []
    for query in queries:
        reading = service.reading_of(query.text)
        semantic = SearchRequest(query=query.text, mode="semantic")
        rows.append({"relevant": qrels.get(query.qid, set()), "sure": bool(reading and reading.shown_sure),
                     "keyword": service.ranking(SearchRequest(query=query.text, mode="keyword"), DEPTH),
                     **{name: side.retrieve(semantic, parse_query(query.text), DEPTH) for name, side in dense.items()}})

    def report(name: str, ranked_for) -> None:
        ranks = [next((at for at, (paper_id, _) in enumerate(ranked_for(row)[:10], 1) if paper_id in row["relevant"]), 0)
                 for row in rows]
        mrr = sum(1 / rank for rank in ranks if rank) / len(rows)
        print(f"{name:36} MRR@10 {mrr:.3f}  success@10 {sum(rank > 0 for rank in ranks) / len(rows):.3f}")

    print(f"half {half}: {len(rows)} Chinese terms, {sum(not row['sure'] for row in rows)} guessed readings")
    report("keyword", lambda row: row["keyword"])
    for side in dense:
        report(f"{side} alone", lambda row, side=side: row[side])
        for weight in WEIGHTS:
            report(f"guessed: keyword + {side} at {weight}", lambda row, side=side, weight=weight:
                   row["keyword"] if row["sure"] or not row["keyword"] else zscore_sum([row["keyword"], row[side]], [1.0, weight]))
        report(f"all: keyword + {side} at 0.5", lambda row, side=side:
               zscore_sum([row["keyword"], row[side]], [1.0, 0.5]) if row["keyword"] else row[side])


def cost(data_dir: Path, which: str, text: str) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    service = SearchService(data_dir)
    service.search(SearchRequest(query=text, mode="keyword"))
    keyword = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    if which != "none":
        from papersift.models import STATIC_MODEL
        from papersift.search.query import parse_query
        from papersift.search.semantic import DenseRetriever

        side = DenseRetriever(data_dir, service, **({"model": STATIC_MODEL} if which == "static" else {}))
        side.retrieve(SearchRequest(query=text, mode="semantic"), parse_query(text), DEPTH)
    print(f"{which}: keyword {keyword[0]:.2f} s wall {keyword[1]:.2f} s CPU; "
          f"dense +{time.perf_counter() - wall:.2f} s wall +{time.process_time() - cpu:.2f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure")
    measuring.add_argument("data_dir", type=Path)
    measuring.add_argument("--half", default="A", choices=("A", "B", "all"))
    costing = commands.add_parser("cost")
    costing.add_argument("data_dir", type=Path)
    costing.add_argument("which", choices=("none", "static", "e5"))
    costing.add_argument("query")
    args = parser.parse_args()
    if args.command == "measure":
        measure(args.data_dir, args.half)
    else:
        cost(args.data_dir, args.which, args.query)


if __name__ == "__main__":
    main()
