"""OpenReview API v2: `/notes` by `content.venueid` (accepted papers) or by the venue's
submission invitation (`VENUE/-/Submission`, every submission), paged with offset/limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from papersift.fetch.http import FetchError

BASE_URL = "https://api2.openreview.net"
MAX_PAGE_SIZE = 1000  # the API's own cap on `limit`
MIN_INTERVAL = 3.0  # guests get about 20 requests a minute


@dataclass
class OpenReviewPager:
    venue_id: str  # 'ICLR.cc/2024/Conference'
    page_size: int = MAX_PAGE_SIZE
    submissions: bool = False  # True: every submission via the invitation, not only accepted papers
    page_suffix: str = ".json"
    start: dict = field(default_factory=lambda: {"offset": 0})

    def __post_init__(self) -> None:
        if not 1 <= self.page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page size must be 1..{MAX_PAGE_SIZE}, got {self.page_size}")

    @property
    def request(self) -> dict:
        return {"venue_id": self.venue_id, "submissions": self.submissions, "page_size": self.page_size}

    def page_request(self, cursor: dict) -> tuple[str, dict]:
        selector = (
            {"invitation": f"{self.venue_id}/-/Submission"} if self.submissions else {"content.venueid": self.venue_id}
        )
        return "/notes", {**selector, "offset": cursor["offset"], "limit": self.page_size}

    def advance(self, cursor: dict, body: bytes) -> tuple[dict | None, int]:
        try:
            response = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise FetchError(f"OpenReview answered with broken JSON at offset {cursor['offset']}: {exc}") from exc
        notes = response.get("notes") if isinstance(response, dict) else None
        if not isinstance(notes, list):
            raise FetchError(f"OpenReview answer at offset {cursor['offset']} has no 'notes' list")
        next_offset = cursor["offset"] + len(notes)
        total = response.get("count")
        finished = len(notes) < self.page_size or (isinstance(total, int) and next_offset >= total)
        return (None if finished else {"offset": next_offset}), len(notes)
