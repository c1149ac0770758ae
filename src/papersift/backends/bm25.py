"""BM25 as tantivy computes it, as small pure functions.

The Typesense backend reranks the candidates Typesense matched with the very scores the
embedded (tantivy) backend gives, so both backends put the same papers on top: same K1/B,
same idf, and the same one-byte field-length quantization (Lucene's SmallFloat.intToByte4,
which tantivy's fieldnorm table reproduces).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

K1 = 1.2
B = 0.75
_FREE_VALUES = 24  # lengths below this are stored exactly


def _long_to_int4(value: int) -> int:
    if value < 8:
        return value
    shift = value.bit_length() - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(code: int) -> int:
    bits, shift = code & 0x07, (code >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


@lru_cache(maxsize=4096)
def quantized_length(length: int) -> int:
    """The field length tantivy scores with: rounded down to one of 256 stored values."""
    if length < _FREE_VALUES:
        return length
    code = _FREE_VALUES + _long_to_int4(length - _FREE_VALUES)
    code = min(code, 255)
    return _FREE_VALUES + _int4_to_long(code - _FREE_VALUES)


def idf(doc_freq: int, doc_count: int) -> float:
    return math.log(1.0 + (doc_count - doc_freq + 0.5) / (doc_freq + 0.5))


def term_score(term_freq: int, field_length: int, avg_length: float, weight: float) -> float:
    """One term (or phrase) in one field; `weight` is its idf (summed over a phrase's terms)."""
    if term_freq == 0 or avg_length <= 0:
        return 0.0
    norm = K1 * (1.0 - B + B * quantized_length(field_length) / avg_length)
    return weight * (1.0 + K1) * term_freq / (term_freq + norm)


def phrase_freq(field_terms: Sequence[str], phrase: Sequence[str]) -> int:
    """How often `phrase` occurs as consecutive terms (single terms: plain term frequency)."""
    if not phrase:
        return 0
    if len(phrase) == 1:
        return sum(1 for term in field_terms if term == phrase[0])
    width = len(phrase)
    first = phrase[0]
    return sum(
        1 for start, term in enumerate(field_terms)
        if term == first and list(field_terms[start:start + width]) == list(phrase)
    )
