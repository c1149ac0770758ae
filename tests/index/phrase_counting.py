"""The term lexicon's phrase counting as one dict (tests only: the build streams the rows)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from papersift.index.phrasecounts import (
    BLOCK_TOKENS,
    MAX_PHRASE_WORDS,
    MIN_PHRASE_PAPERS,
    PARTITION_ROWS,
    counted_phrases,
)


def count_phrases(texts: Iterable[str], min_papers: int = MIN_PHRASE_PAPERS,
                  max_words: int = MAX_PHRASE_WORDS, work_dir: str | os.PathLike | None = None,
                  block_tokens: int = BLOCK_TOKENS, partition_rows: int = PARTITION_ROWS) -> dict[str, tuple[str, int]]:
    """Phrase key -> (most common spelling, papers), as index/termlexicon.build_lexicon counts them."""
    with counted_phrases(texts, work_dir, block_tokens, partition_rows) as counted:
        return {key: (surface, papers) for key, surface, papers in counted.rows(min_papers, max_words)}
