"""Similar papers: nearest neighbours of a stored paper's vector, or of pasted text.

A stored paper reuses its own vector from the index (no model call). Pasted text (an
abstract, a paragraph, a few sentences about a method) is embedded as a passage, since it
reads like one, and searched against the passage vectors. Hybrid mode fuses that ranking
with a keyword ranking of the same text (search/hybrid.py): long pasted text shares many
exact terms with its neighbours, and terms are what the dense side of a small model blurs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from papersift.config import MAX_QUERY_CHARS
from papersift.index.embeddings import Encoder
from papersift.index.vectors import VectorIndex

MAX_LIKE_CHARS = 4 * MAX_QUERY_CHARS  # an abstract fits; the model reads ~256 tokens anyway


class UnknownPaperError(KeyError):
    """The paper id is not in the vector index (unknown, or not embedded yet)."""


def clip_like_text(text: str) -> str:
    """Pasted text, whitespace-normalised and capped (the model would truncate it anyway)."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("the text to find similar papers for is empty")
    return text[:MAX_LIKE_CHARS]


def similar_to_vector(index: VectorIndex, vector: np.ndarray, k: int, allowed: np.ndarray | None = None,
                      exclude: Sequence[str] = ()) -> list[tuple[str, float]]:
    """Nearest papers to a vector, best first, leaving out `exclude` ids."""
    excluded = set(exclude)
    hits = index.search_ids(vector, k + len(excluded), allowed)
    return [(paper_id, score) for paper_id, score in hits if paper_id not in excluded][:k]


def similar_to_paper(index: VectorIndex, paper_id: str, k: int,
                     allowed: np.ndarray | None = None) -> list[tuple[str, float]]:
    vector = index.vector_of(paper_id)
    if vector is None:
        raise UnknownPaperError(paper_id)
    return similar_to_vector(index, vector, k, allowed, exclude=[paper_id])


def embed_like_text(encoder: Encoder, text: str) -> np.ndarray:
    return encoder.encode_passages([clip_like_text(text)])[0]


