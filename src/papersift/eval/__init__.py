"""Retrieval evaluation on benchmarks in BEIR layout (queries, qrels, optional corpus and pools)."""
