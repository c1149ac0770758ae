"""Which dense retriever a data dir has (the SearchService plug-in of the semantic mode):
e5's DenseRetriever (semantic.py), the best-vector retriever over e5 and the static model
(bestvector.py), or none. Kept apart from both so each imports only what it ranks with.
"""

from __future__ import annotations

from pathlib import Path

from papersift import extras
from papersift.index import vectors as vector_store
from papersift.models import DEFAULT_MODEL, STATIC_MODEL, ModelError, get_spec, is_built
from papersift.search.bestvector import BestVectorRetriever
from papersift.search.retrieval import KeywordSide
from papersift.search.semantic import DenseRetriever


def _built(model: str) -> bool:
    try:
        return is_built(get_spec(model))
    except ModelError:
        return False


def make_retriever(data_dir: str | Path, keyword: KeywordSide, quick_descriptions: bool = False):
    """The dense retriever: e5's when its vectors exist and no first pass does (as before the
    static model); the best-vector retriever (search/bestvector.py) when the static model's
    first pass has covered the papers (it switches to e5 for each paper e5 has embedded, and
    wholly once e5 covers every paper). None when neither model is built or nothing was
    embedded yet (the service then answers by keyword and says so; evaluation refuses instead
    of measuring another mode), and when papersift[semantic] is not installed.
    `quick_descriptions`: hybrid's dense side (semantic.py DenseRetriever.reading_for)."""
    if not extras.available("semantic"):
        return None
    full = DenseRetriever(data_dir, keyword, quick_descriptions=quick_descriptions) if _built(DEFAULT_MODEL) else None
    if _built(STATIC_MODEL) and vector_store.current_generation(data_dir, STATIC_MODEL) is not None:
        return BestVectorRetriever(full, DenseRetriever(data_dir, keyword, model=STATIC_MODEL))
    if full is None or vector_store.current_generation(data_dir, DEFAULT_MODEL) is None:
        return None
    return full
