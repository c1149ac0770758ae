"""arXiv: the search API (Atom, paged by start/max_results) and OAI-PMH ListRecords
(metadataPrefix=arXiv, paged by resumptionToken). arXiv asks for one request every 3 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import feedparser

from papersift.fetch.http import FetchError
from papersift.ingest.arxiv import oai_records, parse_oai_page, resumption_token
from papersift.ingest.base import SourceError

API_BASE_URL = "https://export.arxiv.org"
# OAI-PMH's "base URL" is the endpoint itself (arXiv's since 2025; the older one is http://export.arxiv.org/oai2).
OAI_BASE_URL = "https://oaipmh.arxiv.org/oai"
MIN_INTERVAL = 3.0
MAX_API_PAGE = 2000  # the API's cap per request


@dataclass
class ArxivQueryPager:
    """`/api/query?search_query=...&start=&max_results=`, oldest first so pages stay stable."""

    search_query: str
    max_results: int | None = None  # stop after this many entries in total
    page_size: int = 100
    page_suffix: str = ".atom"
    start: dict = field(default_factory=lambda: {"start": 0})

    def __post_init__(self) -> None:
        if not 1 <= self.page_size <= MAX_API_PAGE:
            raise ValueError(f"page size must be 1..{MAX_API_PAGE}, got {self.page_size}")

    @property
    def request(self) -> dict:
        return {"search_query": self.search_query, "max_results": self.max_results, "page_size": self.page_size}

    def page_request(self, cursor: dict) -> tuple[str, dict]:
        size = self.page_size
        if self.max_results is not None:
            size = min(size, self.max_results - cursor["start"])
        return "/api/query", {
            "search_query": self.search_query, "start": cursor["start"], "max_results": size,
            "sortBy": "submittedDate", "sortOrder": "ascending",
        }

    def advance(self, cursor: dict, body: bytes) -> tuple[dict | None, int]:
        feed = feedparser.parse(body)
        if feed.bozo and not feed.entries:
            raise FetchError(f"arXiv answered with an unreadable feed at start={cursor['start']}: {feed.get('bozo_exception')}")
        errors = [entry for entry in feed.entries if "/api/errors" in entry.get("id", "")]
        if errors:
            raise FetchError(f"arXiv API error: {errors[0].get('summary', '').strip()}")
        count = len(feed.entries)
        next_start = cursor["start"] + count
        total = int(feed.feed.get("opensearch_totalresults", next_start) or next_start)
        limit = total if self.max_results is None else min(total, self.max_results)
        finished = count == 0 or next_start >= limit
        return (None if finished else {"start": next_start}), count


@dataclass
class ArxivOaiPager:
    """`<base URL>?verb=ListRecords&metadataPrefix=arXiv&set=&from=&until=`, then `resumptionToken=`."""

    set_spec: str | None = None  # 'cs', 'stat', 'cs:cs:LG' ...
    date_from: str | None = None  # YYYY-MM-DD
    date_until: str | None = None
    page_suffix: str = ".xml"
    start: dict = field(default_factory=lambda: {"token": None})

    @property
    def request(self) -> dict:
        return {"set": self.set_spec, "from": self.date_from, "until": self.date_until}

    def page_request(self, cursor: dict) -> tuple[str, dict]:
        if cursor.get("token"):
            return "", {"verb": "ListRecords", "resumptionToken": cursor["token"]}
        params = {"verb": "ListRecords", "metadataPrefix": "arXiv"}
        for name, value in (("set", self.set_spec), ("from", self.date_from), ("until", self.date_until)):
            if value:
                params[name] = value
        return "", params

    def advance(self, cursor: dict, body: bytes) -> tuple[dict | None, int]:
        try:
            root = parse_oai_page(body)
        except SourceError as exc:
            raise FetchError(f"arXiv OAI-PMH: {exc}") from exc
        count = len(oai_records(root))
        token = resumption_token(root)
        return ({"token": token} if token else None), count
