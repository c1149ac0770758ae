"""Stage timing: exclusive stages inside timed(), nothing recorded outside it, and a keyword
page that names where its time went."""

from __future__ import annotations

import time

from papersift.search.stages import stage, timed
from papersift.search.types import SearchRequest


def test_stages_are_exclusive_and_add_up_to_the_call():
    with timed() as seconds:
        with stage("outer"):
            time.sleep(0.02)
            with stage("inner"):
                time.sleep(0.03)
        time.sleep(0.01)
    assert 0.02 <= seconds["outer"] < 0.03 + 0.02  # the inner stage's time is not the outer's
    assert seconds["inner"] >= 0.03
    assert seconds["other"] >= 0.01
    assert set(seconds) == {"outer", "inner", "other"}


def test_a_stage_outside_timed_records_nothing():
    with timed() as seconds:
        pass
    with stage("rows"):
        pass
    assert set(seconds) == {"other"}


def test_a_keyword_page_names_its_stages(service):
    service.search(SearchRequest(query="neural networks", mode="keyword", size=20))
    with timed() as seconds:
        started = time.perf_counter()
        service.search(SearchRequest(query="neural networks", mode="keyword", size=20))
        took = time.perf_counter() - started
    assert {"query", "engine", "rows", "highlights", "facets"} <= set(seconds)
    assert all(value > 0 for name, value in seconds.items() if name != "other")
    assert abs(sum(seconds.values()) - took) < 0.005
