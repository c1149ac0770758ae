"""arXiv fetchers against the local fake services: API start/max_results and OAI-PMH tokens."""

from __future__ import annotations

import pytest
from tests.fetch.conftest import FIXTURES, arxiv_api_route, arxiv_oai_route, page

from papersift.fetch.arxiv import ArxivOaiPager, ArxivQueryPager
from papersift.fetch.http import FetchError, HttpClient, RetryPolicy
from papersift.fetch.pager import run_pages
from papersift.fetch.state import load_state
from papersift.ingest.pipeline import ingest_paths
from papersift.store import Store


def _client(service, path: str = "") -> HttpClient:
    return HttpClient(service.base_url + path, min_interval=0, retry=RetryPolicy(retries=3, backoff=0.001))


def test_api_pages_by_start(fake_service, tmp_path):
    service = fake_service(arxiv_api_route)
    with _client(service) as client:
        result = run_pages(client, ArxivQueryPager("cat:cs.LG", page_size=2), tmp_path / "job")
    assert [(query["start"], query["max_results"]) for _, query in service.requests] == [("0", "2"), ("2", "2"), ("4", "2")]
    assert service.requests[0][1]["search_query"] == "cat:cs.LG"
    assert (result.records, len(result.pages), result.complete) == (5, 3, True)
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, result.pages, "arxiv")
    assert (store.count(), summary.rejected) == (5, 0)


def test_api_stops_at_max_results(fake_service, tmp_path):
    service = fake_service(arxiv_api_route)
    with _client(service) as client:
        result = run_pages(client, ArxivQueryPager("cat:cs.LG", page_size=2, max_results=4), tmp_path / "job")
    assert result.records == 4 and len(service.requests) == 2


def test_api_429_is_retried_and_resume_skips_done_pages(fake_service, tmp_path):
    service = fake_service(arxiv_api_route)
    pager = ArxivQueryPager("cat:cs.LG", page_size=2)
    with _client(service) as client:
        run_pages(client, pager, tmp_path / "job", max_pages=1)
    assert load_state(tmp_path / "job").cursor == {"start": 2}
    service.fail_next(429, {"Retry-After": "0"})
    with _client(service) as client:
        result = run_pages(client, pager, tmp_path / "job")
    assert [query["start"] for _, query in service.requests] == ["0", "2", "2", "4"]
    assert result.resumed and result.records == 5


def test_api_error_feed_fails_the_fetch(fake_service, tmp_path):
    service = fake_service(lambda path, query: page(FIXTURES / "arxiv" / "query-error.atom", "application/atom+xml"))
    with _client(service) as client, pytest.raises(FetchError, match="arXiv API error: incorrect id format"):
        run_pages(client, ArxivQueryPager("id:1234.12345v99"), tmp_path / "job")


def test_oai_follows_the_resumption_token(fake_service, tmp_path):
    service = fake_service(arxiv_oai_route)
    pager = ArxivOaiPager("cs", "2023-08-01", "2023-08-02")
    with _client(service, "/oai") as client:
        first = run_pages(client, pager, tmp_path / "job", max_pages=1)
        assert load_state(tmp_path / "job").cursor == {"token": "6960524|1001"} and not first.complete
        result = run_pages(client, pager, tmp_path / "job")
    assert [query for _, query in service.requests] == [
        {"verb": "ListRecords", "metadataPrefix": "arXiv", "set": "cs", "from": "2023-08-01", "until": "2023-08-02"},
        {"verb": "ListRecords", "resumptionToken": "6960524|1001"},
    ]
    assert result.complete and result.records == 6  # 5 papers + 1 deleted record
    store = Store(tmp_path / "data")
    summary = ingest_paths(store, result.pages, "oai-pmh")
    assert (store.count(), summary.skipped, summary.rejected) == (5, 1, 0)


def test_oai_no_records_match_ends_without_pages(fake_service, tmp_path):
    service = fake_service(lambda path, query: page(FIXTURES / "arxiv" / "oai-norecords.xml", "text/xml"))
    with _client(service, "/oai") as client:
        result = run_pages(client, ArxivOaiPager("cs", "2030-01-01"), tmp_path / "job")
    assert (result.pages, result.records, result.complete) == ([], 0, True)


def test_oai_error_fails_the_fetch(fake_service, tmp_path):
    service = fake_service(lambda path, query: page(FIXTURES / "arxiv" / "oai-badargument.xml", "text/xml"))
    with _client(service, "/oai") as client, pytest.raises(FetchError, match="OAI-PMH error badArgument"):
        run_pages(client, ArxivOaiPager("cs"), tmp_path / "job")
