"""OpenReview fetcher against the local fake API: offset/limit paging, retries, resume."""

from __future__ import annotations

import re

import pytest
from tests.fetch.conftest import openreview_route

from papersift.fetch.http import HttpClient, RetryPolicy
from papersift.fetch.openreview import OpenReviewPager
from papersift.fetch.pager import run_pages
from papersift.fetch.state import job_dir, load_state
from papersift.ingest.pipeline import ingest_paths
from papersift.store import Store

VENUE = "colmweb.org/COLM/2024/Conference"


def _client(service) -> HttpClient:
    return HttpClient(service.base_url, min_interval=0, retry=RetryPolicy(retries=3, backoff=0.001))


def test_pages_until_the_listing_ends(fake_service, tmp_path):
    service = fake_service(openreview_route)
    directory = job_dir(tmp_path, "openreview", VENUE)
    with _client(service) as client:
        result = run_pages(client, OpenReviewPager(VENUE, page_size=2), directory)
    assert [query["offset"] for _, query in service.requests] == ["0", "2", "4"]
    assert {query["content.venueid"] for _, query in service.requests} == {VENUE}
    assert (len(result.pages), result.records, result.complete) == (3, 5, True)
    summary = ingest_paths(Store(tmp_path / "data"), result.pages, "openreview")
    assert (summary.counts.added, summary.rejected) == (5, 0)


def test_submissions_mode_asks_for_the_invitation(fake_service, tmp_path):
    service = fake_service(openreview_route)
    with _client(service) as client:
        run_pages(client, OpenReviewPager(VENUE, page_size=2, submissions=True), tmp_path / "job")
    assert service.requests[0][1]["invitation"] == f"{VENUE}/-/Submission"


def test_a_503_mid_listing_is_retried(fake_service, tmp_path):
    service = fake_service(openreview_route)
    with _client(service) as client:
        pager = OpenReviewPager(VENUE, page_size=2)
        run_pages(client, pager, tmp_path / "job", max_pages=1)
        service.fail_next(503)
        result = run_pages(client, pager, tmp_path / "job")
    assert [query.get("offset") for _, query in service.requests] == ["0", "2", "2", "4"]
    assert result.records == 5


def test_resume_continues_from_the_saved_cursor_without_duplicates(fake_service, tmp_path):
    service = fake_service(openreview_route)
    directory = job_dir(tmp_path, "openreview", VENUE)
    pager = OpenReviewPager(VENUE, page_size=2)
    with _client(service) as client:
        first = run_pages(client, pager, directory, max_pages=1)
    assert (first.complete, load_state(directory).cursor) == (False, {"offset": 2})

    with _client(service) as client:
        resumed = run_pages(client, pager, directory)
    assert resumed.resumed and resumed.complete
    assert [query["offset"] for _, query in service.requests] == ["0", "2", "4"]  # page 1 not asked again
    store = Store(tmp_path / "data")
    ingest_paths(store, resumed.pages, "openreview")
    assert store.count() == 5 == resumed.records


def test_a_finished_job_starts_over_and_another_request_does_not_resume(fake_service, tmp_path):
    service = fake_service(openreview_route)
    directory = tmp_path / "job"
    with _client(service) as client:
        run_pages(client, OpenReviewPager(VENUE, page_size=2), directory, max_pages=1)
        other = run_pages(client, OpenReviewPager(VENUE, page_size=2, submissions=True), directory)
        assert not other.resumed
        again = run_pages(client, OpenReviewPager(VENUE, page_size=2, submissions=True), directory)
    assert not again.resumed and again.records == 5 and len(again.pages) == 3


def test_page_size_is_checked():
    with pytest.raises(ValueError, match=re.escape("page size must be 1..1000")):
        OpenReviewPager(VENUE, page_size=5000)
