"""The paging loop every fetcher shares: request, save the page, advance the cursor, resume."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from papersift.fetch.http import HttpClient
from papersift.fetch.state import FetchState, load_state, save_state, write_atomic


class Pager(Protocol):
    """One paged listing of a service: how to ask for a page and where the next one starts."""

    page_suffix: str  # '.json', '.xml'
    start: dict  # cursor of the first page

    @property
    def request(self) -> dict:
        """The job's parameters; a saved state for other parameters is not resumed."""

    def page_request(self, cursor: dict) -> tuple[str, dict]:
        """(path, query parameters) of the page at `cursor`."""

    def advance(self, cursor: dict, body: bytes) -> tuple[dict | None, int]:
        """(cursor of the next page or None at the end, records on this page)."""


@dataclass
class FetchResult:
    directory: Path
    pages: list[Path]
    records: int
    requests: int
    resumed: bool
    complete: bool

    def to_dict(self) -> dict:
        return {
            "directory": str(self.directory), "pages": len(self.pages), "records": self.records,
            "requests": self.requests, "resumed": self.resumed, "complete": self.complete,
        }


def run_pages(
    client: HttpClient,
    pager: Pager,
    directory: Path,
    max_pages: int | None = None,
    restart: bool = False,
    on_page: Callable[[int, int], None] | None = None,
) -> FetchResult:
    """Fetch pages into `directory` until the listing ends or `max_pages` new pages are saved.

    An unfinished job for the same request resumes at its saved cursor; a finished one (or
    `restart`) starts over, so a later fetch picks up what the service added since.
    """
    saved = None if restart else load_state(directory)
    if saved is not None and not saved.done and saved.request == pager.request:
        state, resumed = saved, True
    else:
        if directory.exists():
            shutil.rmtree(directory)
        state, resumed = FetchState(request=pager.request, cursor=pager.start), False
        save_state(directory, state)
    requests_before = client.requests_made
    fetched = 0
    while state.cursor is not None and (max_pages is None or fetched < max_pages):
        path, params = pager.page_request(state.cursor)
        body = client.get(path, params)
        next_cursor, count = pager.advance(state.cursor, body)
        if count:
            name = f"page-{len(state.pages) + 1:05d}{pager.page_suffix}"
            write_atomic(directory / name, body)
            state.pages.append(name)
            state.records += count
        state.cursor = next_cursor
        save_state(directory, state)
        fetched += 1
        if on_page:
            on_page(fetched, state.records)
    return FetchResult(
        directory=directory,
        pages=[directory / name for name in state.pages],
        records=state.records,
        requests=client.requests_made - requests_before,
        resumed=resumed,
        complete=state.done,
    )
