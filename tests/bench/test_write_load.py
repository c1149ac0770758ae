"""The load-while-writing drill on a small served copy: readers, writers and `papersift index`
at once, then every posted paper must be searchable and no request may fail."""

from __future__ import annotations

import pytest

from papersift.bench.web import default_queries
from papersift.bench.write_load import drill_paper, markdown, run_drill
from papersift.store import Store

pytestmark = pytest.mark.drill


def test_drill_paper_is_new_and_findable():
    record, word = drill_paper({"title": "Graph networks", "authors": ["A B"], "year": 2020}, writer=2, number=7, run="ab")
    assert record["id"] == "DRILL-ab-2-7" and record["title"].endswith(word) and word == "drillabw2n7"


def test_readers_writers_and_index_at_once(served_data_dir, tmp_path):
    templates = [paper.to_dict() for _, (_, paper) in zip(range(50), Store(served_data_dir, readonly=True).iter_papers())]
    report = run_drill(served_data_dir, default_queries()[:20], templates, readers=3, writers=3, batch=10, seconds=6,
                       scratch=tmp_path)
    assert report["errors"] == 0, report["rows"]
    assert report["index_runs"] >= 1 and not report["index_failures"]
    assert report["posted"] > 0 and report["searchable"] == report["posted"], report["missing_sample"]
    assert "| write |" in markdown(report)
