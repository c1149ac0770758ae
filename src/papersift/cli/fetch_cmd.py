"""papersift fetch openreview / arxiv: page through a service, then ingest the pages."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, err_console, fail, print_json
from papersift.cli.ingest_cmd import _print_summary, _progress
from papersift.fetch import arxiv as arxiv_api
from papersift.fetch import openreview as openreview_api
from papersift.fetch.http import FetchError, HttpClient, RetryPolicy
from papersift.fetch.pager import Pager, run_pages
from papersift.fetch.state import job_dir
from papersift.ingest.pipeline import StrictModeStop, ingest_paths
from papersift.store import Store

fetch_app = typer.Typer(
    help="Fetch papers from OpenReview or arXiv (paged, rate-limited, retried, resumable) and ingest them.",
    no_args_is_help=True,
)
app.add_typer(fetch_app, name="fetch")

BaseUrlOption = Annotated[str | None, typer.Option(
    "--base-url", help="Service root URL, or the OAI-PMH endpoint for --set (for mirrors and tests).")]
DelayOption = Annotated[float | None, typer.Option("--delay", min=0, help="Seconds between requests (default: the service's limit, 3 s).")]
RetriesOption = Annotated[int, typer.Option("--retries", min=0, help="Retries of a failed request (429, 5xx, network).")]
BackoffOption = Annotated[float, typer.Option("--backoff", min=0, help="First retry wait in seconds; doubles each retry.")]
MaxPagesOption = Annotated[int | None, typer.Option("--max-pages", min=1, help="Stop after this many pages (run again to resume).")]
RestartOption = Annotated[bool, typer.Option("--restart", help="Drop the saved cursor and start from the first page.")]
StrictOption = Annotated[bool, typer.Option("--strict", help="Stop ingesting at the first rejected record.")]


@fetch_app.command("openreview")
def fetch_openreview(
    venue_id: Annotated[str, typer.Argument(help="OpenReview venue id, e.g. ICLR.cc/2024/Conference.")],
    submissions: Annotated[bool, typer.Option(
        "--submissions", help="List every submission (VENUE/-/Submission) instead of accepted papers (content.venueid).")] = False,
    page_size: Annotated[int, typer.Option("--page-size", min=1, max=openreview_api.MAX_PAGE_SIZE)] = openreview_api.MAX_PAGE_SIZE,
    max_pages: MaxPagesOption = None,
    base_url: BaseUrlOption = None,
    delay: DelayOption = None,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 2.0,
    restart: RestartOption = False,
    strict: StrictOption = False,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """OpenReview API v2 notes of one venue (offset/limit paging), then ingest."""
    pager = openreview_api.OpenReviewPager(venue_id, page_size=page_size, submissions=submissions)
    client = _client(base_url or openreview_api.BASE_URL, delay, openreview_api.MIN_INTERVAL, retries, backoff, as_json)
    _fetch_and_ingest(client, pager, "openreview", venue_id, "openreview", max_pages, restart, strict, data_dir, as_json)


@fetch_app.command("arxiv")
def fetch_arxiv(
    query: Annotated[str | None, typer.Option("--query", help="arXiv API search_query, e.g. 'cat:cs.LG AND ti:diffusion'.")] = None,
    set_spec: Annotated[str | None, typer.Option("--set", help="OAI-PMH set to harvest instead, e.g. cs or stat.")] = None,
    date_from: Annotated[str | None, typer.Option("--from", help="OAI-PMH: records changed on/after YYYY-MM-DD.")] = None,
    date_until: Annotated[str | None, typer.Option("--until", help="OAI-PMH: records changed on/before YYYY-MM-DD.")] = None,
    max_results: Annotated[int | None, typer.Option("--max-results", min=1, help="API: stop after this many entries.")] = None,
    page_size: Annotated[int, typer.Option("--page-size", min=1, max=arxiv_api.MAX_API_PAGE, help="API: entries per request.")] = 100,
    max_pages: MaxPagesOption = None,
    base_url: BaseUrlOption = None,
    delay: DelayOption = None,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 2.0,
    restart: RestartOption = False,
    strict: StrictOption = False,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """arXiv: the search API (--query, Atom) or an OAI-PMH harvest (--set/--from/--until), then ingest."""
    if bool(query) == bool(set_spec or date_from or date_until):
        fail("give either --query (arXiv API) or --set/--from/--until (OAI-PMH), not both or neither", code=2)
    pager: Pager
    if query:
        pager = arxiv_api.ArxivQueryPager(query, max_results=max_results, page_size=page_size)
        source, key, format_name, default_url = "arxiv-api", query, "arxiv", arxiv_api.API_BASE_URL
    else:
        pager = arxiv_api.ArxivOaiPager(set_spec, date_from, date_until)
        source, key, format_name, default_url = "arxiv-oai", f"{set_spec}|{date_from}|{date_until}", "oai-pmh", arxiv_api.OAI_BASE_URL
    client = _client(base_url or default_url, delay, arxiv_api.MIN_INTERVAL, retries, backoff, as_json)
    _fetch_and_ingest(client, pager, source, key, format_name, max_pages, restart, strict, data_dir, as_json)


def _client(base_url: str, delay: float | None, default_delay: float, retries: int, backoff: float, quiet: bool) -> HttpClient:
    def report_wait(message: str) -> None:
        if not quiet:
            err_console.print(f"[yellow]retrying[/] {escape(message)}", highlight=False)

    return HttpClient(
        base_url,
        min_interval=default_delay if delay is None else delay,
        retry=RetryPolicy(retries=retries, backoff=backoff),
        on_wait=report_wait,
    )


def _fetch_and_ingest(client, pager, source, key, format_name, max_pages, restart, strict, data_dir, as_json) -> None:
    resolved_dir = data_dir_of(data_dir)
    directory = job_dir(resolved_dir, source, key)
    try:
        with client, _progress(disable=as_json) as progress:
            task = progress.add_task(f"fetch {source}", total=None)
            result = run_pages(
                client, pager, directory, max_pages=max_pages, restart=restart,
                on_page=lambda pages, records: progress.update(task, completed=records),
            )
    except (FetchError, ValueError) as exc:
        fail(escape(f"{exc} (pages so far are kept in {directory}; run again to resume)"))
    if not result.pages:
        _report(result, None, as_json)
        return
    store = Store(resolved_dir)
    try:
        with _progress(disable=as_json) as progress:
            task = progress.add_task("ingest", total=None)
            summary = ingest_paths(store, result.pages, format_name, strict, lambda n: progress.advance(task, n))
    except StrictModeStop as stop:
        fail(f"rejected (--strict): {escape(str(stop.error))}")
    _report(result, summary, as_json)
    if summary.rejected:
        raise typer.Exit(1)


def _report(result, summary, as_json: bool) -> None:
    if as_json:
        print_json({"fetch": result.to_dict(), "ingest": summary.to_dict() if summary else None})
        return
    state = "complete" if result.complete else "incomplete (run again to resume)"
    console.print(
        f"fetched {result.records} records in {len(result.pages)} page(s), {result.requests} request(s)"
        f"{' (resumed)' if result.resumed else ''}: {state}",
        highlight=False,
    )
    if summary:
        _print_summary(summary)
