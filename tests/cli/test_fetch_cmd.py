"""papersift fetch openreview / arxiv against the local fake services, end to end into the store."""

from __future__ import annotations

import json

from tests.fetch.conftest import arxiv_api_route, arxiv_oai_route, fake_service, openreview_route  # noqa: F401
from typer.testing import CliRunner

from papersift.cli import app
from papersift.store import Store

FAST = ["--delay", "0", "--backoff", "0.001"]


def run_cli(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def test_fetch_openreview_then_resume(fake_service, tmp_path):  # noqa: F811
    service = fake_service(openreview_route)
    command = ["fetch", "openreview", "colmweb.org/COLM/2024/Conference", "--base-url", service.base_url,
               "--page-size", "2", "--data-dir", tmp_path, "--json", *FAST]
    first = run_cli(*command, "--max-pages", "1")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["fetch"]["records"], report["fetch"]["complete"], report["ingest"]["added"]) == (2, False, 2)

    service.fail_next(503)
    second = run_cli(*command)
    assert second.exit_code == 0, second.output
    report = json.loads(second.stdout)
    assert report["fetch"]["resumed"] and report["fetch"]["complete"]
    assert (report["fetch"]["records"], report["ingest"]["added"], report["ingest"]["unchanged"]) == (5, 3, 2)
    assert [query["offset"] for _, query in service.requests] == ["0", "2", "2", "4"]
    store = Store(tmp_path, readonly=True)
    assert store.count() == 5
    assert store.get("COLM-2024-0UK8c2kg7c").title.startswith("InstructAV")


def test_fetch_arxiv_query_and_oai(fake_service, tmp_path):  # noqa: F811
    api = fake_service(arxiv_api_route)
    result = run_cli("fetch", "arxiv", "--query", "cat:cs.LG", "--page-size", "2", "--base-url", api.base_url,
                     "--data-dir", tmp_path, *FAST)
    assert result.exit_code == 0, result.output
    assert "fetched 5 records in 3 page(s), 3 request(s): complete" in result.stdout
    oai = fake_service(arxiv_oai_route)
    result = run_cli("fetch", "arxiv", "--set", "cs", "--from", "2023-08-01", "--until", "2023-08-02",
                     "--base-url", oai.base_url + "/oai", "--data-dir", tmp_path, "--json", *FAST)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["ingest"]["unchanged"], report["ingest"]["skipped"], report["ingest"]["added"]) == (5, 1, 0)
    assert Store(tmp_path, readonly=True).count() == 5


def test_fetch_failure_names_the_request_and_keeps_the_cursor(fake_service, tmp_path):  # noqa: F811
    service = fake_service(openreview_route)
    for _ in range(3):
        service.fail_next(503)
    result = run_cli("fetch", "openreview", "colmweb.org/COLM/2024/Conference", "--base-url", service.base_url,
                     "--retries", "2", "--data-dir", tmp_path, *FAST)
    assert result.exit_code == 1
    assert "failed after 3 attempts: HTTP 503" in result.stderr and "run again to resume" in result.stderr


def test_arxiv_needs_exactly_one_mode(tmp_path):
    assert run_cli("fetch", "arxiv", "--data-dir", tmp_path).exit_code == 2
    both = run_cli("fetch", "arxiv", "--query", "cat:cs.LG", "--set", "cs", "--data-dir", tmp_path)
    assert both.exit_code == 2 and "either --query" in both.stderr
