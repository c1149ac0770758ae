"""Facet counts from facet-key codes, with numpy.

Every indexed paper has a facet key (its venue, year, area, subarea and status joined,
index/lexical.py) stored as a code (index/rows.py). A FacetTable is built once per
generation of the row store, not per query: for each facet field, its distinct values
in the order ties are shown, and for each key code the index of the key's value. A
query's counts per code (from the aggregation over its matches, or from the rows of
a page that holds every match) then become counts per value with one bincount per field.
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from papersift.index.lexical import FACET_KEY_FIELDS, FACET_SEPARATOR
from papersift.search.types import FACET_FIELDS, FacetValue

_KEY, _DOC_COUNT = itemgetter("key"), itemgetter("doc_count")


class _Field:
    """One facet field: its values, and per key code the index of the key's value
    (len(values) for a key without one)."""

    __slots__ = ("values", "value_of_code", "by_count")

    def __init__(self, values_per_key: list[str], by_count: bool):
        # Values sorted as ties are listed: by value (year: newest first, as strings).
        self.values = sorted({value for value in values_per_key if value}, reverse=not by_count)
        position = {value: index for index, value in enumerate(self.values)}
        missing = len(self.values)
        self.value_of_code = np.array([position.get(value, missing) for value in values_per_key], dtype=np.intp)
        self.by_count = by_count

    def count(self, key_counts: np.ndarray) -> list[FacetValue]:
        counts = np.bincount(self.value_of_code, weights=key_counts, minlength=len(self.values) + 1)[:-1]
        present = np.flatnonzero(counts)
        if self.by_count:  # most papers first; ties keep the value order
            present = present[np.argsort(-counts[present], kind="stable")]
        values = self.values
        return [FacetValue(values[index], count)
                for index, count in zip(present.tolist(), counts[present].astype(np.int64).tolist())]


def bucket_counts(buckets: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(codes, paper counts) of a terms aggregation's buckets over facet codes."""
    codes = np.fromiter(map(_KEY, buckets), dtype=np.float64, count=len(buckets)).astype(np.intp)
    return codes, np.fromiter(map(_DOC_COUNT, buckets), dtype=np.float64, count=len(buckets))


class FacetTable:
    """Counts per facet value for a set of papers given by their facet-key codes."""

    def __init__(self, keys: list[str]):
        self.keys = keys  # the row store's list: a reload brings a new one (see current_for)
        split = [key.split(FACET_SEPARATOR) for key in keys]
        self._fields = {
            name: _Field([parts[at] for parts in split], by_count=name != "year")
            for at, name in enumerate(FACET_KEY_FIELDS)
        }

    def __len__(self) -> int:
        return len(self.keys)

    def of_codes(self, codes: np.ndarray) -> dict[str, list[FacetValue]]:
        """Facets of the papers whose codes these are (one code per paper)."""
        return self.of_key_counts(np.bincount(codes, minlength=len(self.keys)).astype(np.float64))

    def of_code_counts(self, codes: np.ndarray, counts: np.ndarray) -> tuple[int, dict[str, list[FacetValue]]]:
        """(papers counted, facets) from papers counted per code (each code at most once)."""
        key_counts = np.zeros(len(self.keys), dtype=np.float64)
        key_counts[codes] = counts
        return int(counts.sum()), self.of_key_counts(key_counts)

    def of_key_counts(self, key_counts: np.ndarray) -> dict[str, list[FacetValue]]:
        return {name: self._fields[name].count(key_counts) for name in FACET_FIELDS}
