"""The one write endpoint (adding papers). Off unless the app is created with writes
enabled, and then every call needs the bearer token."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Body, Request

from papersift.api.errors import ApiError
from papersift.api.schemas import ErrorOut
from papersift.index import lexical
from papersift.record import RecordError, paper_from_dict
from papersift.search.backend import TantivyBackend
from papersift.store import Store

MAX_WRITE_RECORDS = 1000

router = APIRouter(prefix="/api", tags=["write"], responses={
    401: {"model": ErrorOut, "description": "Missing or wrong token"},
    403: {"model": ErrorOut, "description": "Writes are disabled"},
    501: {"model": ErrorOut, "description": "The server searches a Typesense cluster, which writes do not reach"},
    422: {"model": ErrorOut, "description": "Invalid record"},
})


def require_write_access(request: Request) -> None:
    settings = request.app.state.settings
    if not settings.enable_writes:
        raise ApiError(403, "writes_disabled", "this server is read-only; start it with --enable-writes and a token")
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.encode(), settings.write_token.encode()):
        raise ApiError(401, "unauthorized", "writes need 'Authorization: Bearer <token>' with the server's write token")


def refresh_indexes(data_dir, service) -> None:
    """Index what changed in the store, then make the running service see it at once."""
    lexical.update(data_dir)
    backend = getattr(service, "backend", None)
    if backend is not None and hasattr(backend, "refresh"):
        backend.refresh(force=True)


@router.post("/papers", summary="Add or update papers (disabled unless enabled, token required)")
def add_papers(request: Request, records: list[dict] = Body(..., max_length=MAX_WRITE_RECORDS)) -> dict:
    """Records in the shared corpus schema; each is validated, then upserted into the store
    and the search indexes are refreshed."""
    require_write_access(request)
    if not isinstance(getattr(request.app.state.service, "backend", None), TantivyBackend):
        # A write lands in the data dir's store and embedded index; a Typesense cluster would
        # never see it, so saying "added" would be untrue for the searches this server answers.
        raise ApiError(501, "writes_not_supported", "this server searches a Typesense cluster, which API writes do not "
                       "reach; add papers with 'papersift ingest' and push them with 'papersift index --backend typesense'")
    papers = []
    for position, record in enumerate(records):
        try:
            papers.append(paper_from_dict(record, source="api"))
        except RecordError as problem:
            raise ApiError(422, "invalid_record", f"record {position}: {problem}",
                           [{"record": position, "problem": str(problem)}]) from None
    data_dir = request.app.state.settings.data_dir
    counts = Store(data_dir).upsert(papers)
    refresh_indexes(data_dir, request.app.state.service)
    return {"added": counts.added, "updated": counts.updated, "merged": counts.merged, "unchanged": counts.unchanged}
