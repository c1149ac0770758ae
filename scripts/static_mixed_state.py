"""Known-item MRR@10 while e5 is part-way (docs/static-embeddings.md, "e5 part-way").

    python scripts/static_mixed_state.py FULL_DIR MIXED_DIR SHARE

FULL_DIR: a data dir with e5 vectors for every paper (read only). MIXED_DIR: a copy of its
store and lexical index with static vectors (`papersift embed --model
multilingual-e5-small-static`); its e5 generation is rewritten here with the rows of the
shortest SHARE of the papers (embed's order), then semantic and hybrid are ranked through the
product path (make_retriever -> BestVectorRetriever).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from papersift.config import shared_data_dir
from papersift.eval.datasets import load_qrels, load_queries
from papersift.eval.runner import evaluate
from papersift.index import vectors as vector_store
from papersift.index.embeddings import paper_text
from papersift.index.models import DEFAULT_MODEL
from papersift.search.service import SearchService
from papersift.store import Store


def main(full_dir: Path, mixed_dir: Path, share: float) -> None:
    full = vector_store.VectorIndex.open(full_dir, DEFAULT_MODEL)
    papers = {paper.id: paper for _, paper in Store(mixed_dir, readonly=True).iter_papers(0)}
    shortest = sorted(papers, key=lambda paper_id: len(paper_text(papers[paper_id])))
    kept = set(shortest[:int(share * len(shortest))])
    rows = [row for row, paper_id in enumerate(full.paper_ids) if paper_id in kept]
    vector_store.write_index(mixed_dir, DEFAULT_MODEL, [full.paper_ids[row] for row in rows],
                             np.asarray(full.vectors[rows]), papers_total=len(papers), last_seq=full.meta.last_seq)
    shared = shared_data_dir()
    queries = load_queries(shared / "knownitem" / "queries_dev.jsonl")
    qrels = load_qrels(shared / "knownitem" / "qrels_dev.tsv")
    for mode in ("semantic", "hybrid"):
        result = evaluate(SearchService(mixed_dir), queries, qrels, mode)
        print(f"e5 share {share} {mode}:", {name: round(values["mrr@10"], 4) for name, values in result.metrics.items()})


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]))
