"""Facet counts from facet-key codes, checked against counting the papers' own fields."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from papersift.index.facetkeys import FACET_GROUPS, facet_keys, facet_value
from papersift.search.facets import FacetTable, bucket_counts
from papersift.search.types import FACET_FIELDS
from papersift.store import Store


@pytest.fixture(scope="module")
def papers(sample_data_dir):
    return [paper for _, paper in Store(sample_data_dir, readonly=True).iter_papers(0)]


@pytest.fixture(scope="module")
def coded(papers):
    """(per facet group, its keys by code; (paper, group) -> code), as the row store keeps them."""
    code_of: list[dict[str, int]] = [{} for _ in FACET_GROUPS]
    codes = [[code_of[group].setdefault(key, len(code_of[group])) for group, key in enumerate(facet_keys(paper))]
             for paper in papers]
    keys = [sorted(group_codes, key=group_codes.get) for group_codes in code_of]
    return keys, np.asarray(codes, dtype=np.uint32)


def reference(papers) -> dict[str, list[tuple[str, int]]]:
    """Counts per value; most papers first, ties by value; years newest first."""
    facets = {}
    for name in FACET_FIELDS:
        counts = Counter(str(facet_value(paper, name)) for paper in papers if facet_value(paper, name) is not None)
        counts.pop("", None)
        if name == "year":
            facets[name] = sorted(counts.items(), reverse=True)
        else:
            facets[name] = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return facets


def as_pairs(facets) -> dict[str, list[tuple[str, int]]]:
    return {name: [(value.value, value.count) for value in values] for name, values in facets.items()}


def test_counts_of_codes_match_counting_the_papers(papers, coded):
    keys, codes = coded
    table = FacetTable(keys)
    rng = random.Random(7)
    for size in (0, 1, 20, 200, len(papers)):
        chosen = sorted(rng.sample(range(len(papers)), size))
        assert as_pairs(table.of_codes(codes[chosen])) == reference([papers[i] for i in chosen])


def test_counts_from_aggregation_buckets(papers, coded):
    keys, codes = coded
    groups = []
    for group in range(len(FACET_GROUPS)):
        per_code = Counter(codes[:, group].tolist())
        groups.append(bucket_counts([{"key": code, "doc_count": count} for code, count in per_code.most_common()]))
    total, facets = FacetTable(keys).of_code_counts(groups)
    assert total == len(papers)
    assert as_pairs(facets) == reference(papers)
    assert FacetTable(keys).of_code_counts([bucket_counts([]) for _ in FACET_GROUPS])[0] == 0


def test_a_new_facet_value_counts_after_an_update(tmp_path, sample_records):
    from dataclasses import replace

    from papersift.index import lexical
    from papersift.record import paper_from_dict
    from papersift.search.query import parse_query
    from papersift.search.tantivy_backend import TantivyBackend

    store = Store(tmp_path / "data")
    store.upsert(paper_from_dict(record) for record in sample_records[:100])
    lexical.build(store.data_dir)
    backend = TantivyBackend(store.data_dir)
    assert backend.search(parse_query("")).total == 100  # the facet table of the first rows is built
    new = replace(paper_from_dict(sample_records[100]), title="Qwertyuiop sampling", venue="NewVenue 2099")
    store.upsert([new])
    lexical.update(store.data_dir)
    backend.refresh(force=True)
    everything = backend.search(parse_query(""))  # aggregation over all 101
    assert everything.total == 101 and {"NewVenue 2099": 1}.items() <= {
        value.value: value.count for value in everything.facets["venue"]}.items()
    alone = backend.search(parse_query("qwertyuiop"))  # facets from the page's rows
    assert alone.total == 1 and [(v.value, v.count) for v in alone.facets["venue"]] == [("NewVenue 2099", 1)]
