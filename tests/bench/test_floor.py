"""bench floor (bench/floor.py) on pseudo-random vectors: the report's shape, and that it
calibrates per query length the same way it calibrates the floor (lowest best of gibberish)."""

from __future__ import annotations

import pytest
from tests.search.conftest import navigable_copy

from hybrid_service import CountingEncoder
from papersift.bench import floor
from papersift.search import semantic


@pytest.fixture(scope="module")
def floor_dir(sample_data_dir, tmp_path_factory):
    return navigable_copy(sample_data_dir, tmp_path_factory.mktemp("floor"))


def test_the_floor_report_gives_each_query_length_its_own_gibberish_and_pseudo_queries(floor_dir, monkeypatch):
    monkeypatch.setattr(semantic, "shared_encoder", lambda model: CountingEncoder())
    row = floor.calibrate(floor_dir, "multilingual-e5-small", queries=40, titles=20)
    assert row["queries"] == 40 and row["titles"] == 20
    assert [bucket["words"] for bucket in row["by_words"]] == list(floor.BUCKET_WORDS)
    for bucket in row["by_words"]:
        assert -1.0 <= bucket["gibberish_floor"] <= bucket["gibberish_median"] <= 1.0
        assert bucket["pseudo_queries"] <= 20 and 0.0 <= bucket["own_paper_above_floor"] <= 1.0
    assert "By query length" in floor.markdown({"data_dir": str(floor_dir), "seed": 0, "models": [row]})
