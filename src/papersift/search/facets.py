"""Facet counts from facet-key codes, with numpy.

Every indexed paper has one facet key per facet group (e.g. its venue, year and status
joined; its area and subarea joined: index/facetkeys.py FACET_GROUPS), each stored as a
code (index/rows.py). Small groups keep the codes few (a terms aggregation returns one
bucket per code to Python). A FacetTable is built once per generation of the row store,
not per query: for each facet field, its distinct values in the order ties are shown,
and for each code of the field's group the index of the key's value. A query's counts
per code (from the aggregations over its matches, or from the rows of a page that holds
every match) then become counts per value with one bincount for all fields. Keys are
append-only, so a code keeps its meaning as the row store grows.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from papersift.index.facetkeys import FACET_POSITION, FACET_SEPARATOR
from papersift.search.types import FACET_FIELDS, FacetValue

_KEY, _DOC_COUNT = itemgetter("key"), itemgetter("doc_count")

CodeCounts = tuple[np.ndarray, np.ndarray]  # (codes, paper counts) of one facet group
MAX_LISTED = 100_000  # FacetValues a table keeps for reuse (then it starts again)


def _minus_count(item: tuple[int, int]) -> int:
    return -item[1]


def bucket_counts(buckets: list[dict]) -> CodeCounts:
    """(codes, paper counts) of a terms aggregation's buckets over facet codes."""
    codes = np.fromiter(map(_KEY, buckets), dtype=np.float64, count=len(buckets)).astype(np.intp)
    return codes, np.fromiter(map(_DOC_COUNT, buckets), dtype=np.float64, count=len(buckets))


class FacetTable:
    """Counts per facet value for a set of papers given by their facet-key codes.

    All fields' values are numbered together, field after field (FACET_FIELDS order) and
    within a field in the order ties are listed (by value; years newest first), so one
    bincount counts every field and a stable sort of each field's values orders it."""

    def __init__(self, keys: Sequence[list[str]]):
        self.keys = keys  # the row store's lists: a reload brings new ones (see _Live.facets_for)
        split = [[key.split(FACET_SEPARATOR) for key in group_keys] for group_keys in keys]
        self.values: list[str] = []
        # each field's value numbers (values are numbered field by field) and whether it lists
        # most papers first (else in the tie order: years newest first)
        self._fields: list[tuple[str, int, int, bool]] = []
        value_ids: list[list[list[int]]] = [[] for _ in keys]  # group -> field in it -> value per code
        for name in FACET_FIELDS:
            group, at = FACET_POSITION[name]
            per_key = [parts[at] for parts in split[group]]
            ordered = sorted({value for value in per_key if value}, reverse=name == "year")
            first = len(self.values)
            position = {value: first + index for index, value in enumerate(ordered)}
            value_ids[group].append([position.get(value, -1) for value in per_key])
            self.values += ordered
            self._fields.append((name, first, len(self.values), name != "year"))
        missing = len(self.values)  # one extra bin for keys without a value in some field
        self._value_ids = []  # per group: (key code, field of the group) -> value number
        for group_keys, ids in zip(keys, value_ids):
            table = np.array(ids, dtype=np.intp).reshape(len(ids), len(group_keys)).T
            self._value_ids.append(np.where(table < 0, missing, table))
        self._listed: dict[tuple[int, int], FacetValue] = {}  # (value number, count) -> its FacetValue

    def of_codes(self, codes: np.ndarray) -> dict[str, list[FacetValue]]:
        """Facets of the papers whose codes these are ((paper, facet group) -> code)."""
        if not len(codes):  # e.g. a query no paper matches before it is relaxed
            return {name: [] for name in FACET_FIELDS}
        value_numbers = np.concatenate([ids[codes[:, group]].ravel() for group, ids in enumerate(self._value_ids)])
        return self._facets(np.bincount(value_numbers, minlength=len(self.values) + 1))

    def of_code_counts(self, groups: Sequence[CodeCounts]) -> tuple[int, dict[str, list[FacetValue]]]:
        """(papers counted, facets) from papers counted per code in each facet group
        (each code at most once in its group; every paper has a code in every group)."""
        value_numbers = np.concatenate([ids[codes].ravel() for ids, (codes, _) in zip(self._value_ids, groups)])
        weights = np.concatenate([np.repeat(counts, ids.shape[1]) for ids, (_, counts) in zip(self._value_ids, groups)])
        per_value = np.bincount(value_numbers, weights=weights, minlength=len(self.values) + 1)
        return int(groups[0][1].sum()), self._facets(per_value)

    def _facets(self, per_value: np.ndarray) -> dict[str, list[FacetValue]]:
        """Each field's values with papers, most papers first (years newest first), ties in the
        values' order. In Python: a few hundred values, where numpy's calls cost more than the
        work; each (value, count) FacetValue made once per table (they are immutable)."""
        counts = per_value.tolist()
        listed, values = self._listed, self.values
        if len(listed) > MAX_LISTED:
            listed.clear()
        facets = {}
        for name, start, end, by_count in self._fields:
            present = [(number, int(count)) for number, count in enumerate(counts[start:end], start) if count]
            if by_count:
                present.sort(key=_minus_count)  # stable: ties keep the values' order
            found = []
            for item in present:
                value = listed.get(item)
                if value is None:
                    value = listed[item] = FacetValue(values[item[0]], item[1])
                found.append(value)
            facets[name] = found
        return facets
