"""Vector search on the Typesense cluster: papers' embeddings in a float[] field.

`cache_vectors(data_dir, encoder)` gives `papersift index --backend typesense --vectors`
the vectors the data dir's embedding cache holds (computed by `papersift embed`, same
keys). `TypesenseDenseRetriever` is the semantic retriever for `serve --backend
typesense`: the query is embedded here, Typesense finds the nearest papers (a separate
vector query: 0.24 cannot mix it with a text query), and hybrid fusion stays on the
papersift side (papersift.search.hybrid), as with the embedded engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_index import VectorLookup
from papersift.backends.typesense_query import quote
from papersift.index.embeddings import EmbeddingCache, Encoder, paper_text, token_key
from papersift.record import Paper
from papersift.search.memo import Memo
from papersift.search.query import ParsedQuery, query_text
from papersift.search.semantic import QUERY_VECTORS_KEPT
from papersift.search.types import SearchRequest

VECTOR_FIELD = "embedding"
MAX_VECTOR_K = 250
# HNSW search breadth per query. Typesense 0.24.1 parses only `k` and `flat_search_cutoff` in a
# vector query (an `ef` is ignored) and searches hnswlib with ef = max(its default 10, k): with
# k = 10 it missed the 3rd nearest of 150 papers in about one build in three. Asking for this
# many neighbours (the page still takes `per_page`) makes the breadth this wide.
VECTOR_EF = 256


def cache_vectors(data_dir: str | Path, encoder: Encoder) -> VectorLookup:
    """Lookup of each paper's cached passage vector (None when `papersift embed` has not made it)."""
    cache = EmbeddingCache(data_dir, readonly=True)

    def lookup(papers: list[Paper]) -> list[np.ndarray | None]:
        token_lists = encoder.tokenize([encoder.passage_input(paper_text(paper)) for paper in papers])
        keys = [token_key(encoder.cache_key_prefix, ids) for ids in token_lists]
        found = cache.get_many(keys)
        return [found.get(key) for key in keys]

    return lookup


class TypesenseDenseRetriever:
    """Semantic ranking by the cluster's vector field; plugs into SearchService and HybridRetriever."""

    def __init__(self, backend: TypesenseBackend, encoder: Encoder):
        self.backend = backend
        self.encoder = encoder
        self._query_vectors: Memo[np.ndarray] = Memo(QUERY_VECTORS_KEPT)  # one model call per query text
        self.index = True  # HybridRetriever falls back to keyword ranking when this is None
        # The term bridge (Chinese words -> English terms) lives in an embedded data dir; the
        # cluster does not carry it yet, so Chinese queries are carried over by the dictionary alone.
        self.bridge = None

    def notices(self) -> list[str]:
        return []

    def nearest(self, vector: np.ndarray, k: int, query: ParsedQuery,
                candidate_ids: Sequence[str] | None = None, exclude_id: str | None = None) -> list[tuple[str, float]]:
        compiled = self.backend.compile(ParsedQuery(excluded=query.excluded, filters=query.filters), candidate_ids)
        filters = list(compiled.filter_parts)
        values = ",".join(f"{x:.9g}" for x in np.asarray(vector, dtype=np.float32))
        k = max(1, min(k + (1 if exclude_id else 0), MAX_VECTOR_K))  # Typesense cannot filter id != x
        search = {"collection": self.backend.alias, "q": "*", "per_page": k, "include_fields": "id",
                  "vector_query": f"{VECTOR_FIELD}:([{values}], k: {max(k, VECTOR_EF)})"}
        if filters:
            search["filter_by"] = " && ".join(filters)
        result = self.backend._multi_search([search])[0]
        return [(hit["document"]["id"], 1.0 - float(hit.get("vector_distance", 1.0))) for hit in result["hits"]
                if hit["document"]["id"] != exclude_id]

    def stored_vector(self, paper_id: str) -> np.ndarray | None:
        search = {"collection": self.backend.alias, "q": "*", "per_page": 1, "include_fields": f"id,{VECTOR_FIELD}",
                  "filter_by": f"id:={quote(paper_id)}"}
        hits = self.backend._multi_search([search])[0]["hits"]
        vector = hits[0]["document"].get(VECTOR_FIELD) if hits else None
        return np.asarray(vector, dtype=np.float32) if vector else None

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if request.like_id:
            vector = self.stored_vector(request.like_id)
            return self.nearest(vector, k, query, candidate_ids, exclude_id=request.like_id) if vector is not None else []
        text = request.like_text or query_text(query)
        if not text:
            return []
        vector = self.encoder.encode_passages([text])[0] if request.like_text else self.query_vector(text)
        return self.nearest(vector, k, query, candidate_ids)

    def query_vector(self, text: str) -> np.ndarray:
        return self._query_vectors.get(text, lambda: self.encoder.encode_query(text))

    def rank_text(self, text: str, query: ParsedQuery, k: int,
                  candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        return self.nearest(self.query_vector(text), k, query, candidate_ids) if text else []


def register_typesense_retrievers(service, backend: TypesenseBackend, encoder: Encoder) -> None:
    """semantic and hybrid modes of `service` answered from the cluster's vectors."""
    from papersift.search.hybrid import HybridRetriever

    dense = TypesenseDenseRetriever(backend, encoder)
    service.register_retriever("semantic", dense)
    service.register_retriever("hybrid", HybridRetriever(dense, service))
