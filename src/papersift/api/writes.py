"""The one write endpoint (adding papers). Off unless the app is created with writes
enabled, and then every call needs the bearer token."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Body, Request

from papersift.api.errors import ApiError
from papersift.record import RecordError, paper_from_dict
from papersift.store import Store

MAX_WRITE_RECORDS = 1000

router = APIRouter(prefix="/api", tags=["write"])


def require_write_access(request: Request) -> None:
    settings = request.app.state.settings
    if not settings.enable_writes:
        raise ApiError(403, "writes_disabled", "this server is read-only; start it with --enable-writes and a token")
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.encode(), settings.write_token.encode()):
        raise ApiError(401, "unauthorized", "writes need 'Authorization: Bearer <token>' with the server's write token")


@router.post("/papers", summary="Add or update papers (disabled unless enabled, token required)")
def add_papers(request: Request, records: list[dict] = Body(..., max_length=MAX_WRITE_RECORDS)) -> dict:
    """Records in the shared corpus schema; each is validated, then upserted into the store
    and the search indexes are refreshed."""
    require_write_access(request)
    papers = []
    for position, record in enumerate(records):
        try:
            papers.append(paper_from_dict(record, source="api"))
        except RecordError as problem:
            raise ApiError(422, "invalid_record", f"record {position}: {problem}",
                           [{"record": position, "problem": str(problem)}]) from None
    counts = Store(request.app.state.settings.data_dir).upsert(papers)
    refresh = getattr(request.app.state.service, "refresh", None)
    if callable(refresh):
        refresh()
    return {"added": counts.added, "updated": counts.updated, "merged": counts.merged, "unchanged": counts.unchanged}
