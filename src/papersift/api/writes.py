"""The one write endpoint (adding papers). Off unless the app is created with writes
enabled, and then every call needs the bearer token.

The access check runs before a byte of the body is read: a read-only server answers 403
and a wrong token 401 whatever the body (a 300 MB body used to be parsed first). The body
is then read under the size and time limits of api.limits and parsed by the route itself.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from typing import TypeVar

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool

from papersift.api.auth import accounts_on, require_user
from papersift.api.errors import ApiError
from papersift.api.index_refresh import GroupRefresher
from papersift.api.schemas import ErrorOut
from papersift.index import lexical
from papersift.record import RecordError, paper_from_dict
from papersift.search.tantivy_backend import TantivyBackend
from papersift.store import Store

MAX_WRITE_RECORDS = 1000

router = APIRouter(prefix="/api", tags=["write"], responses={
    401: {"model": ErrorOut, "description": "Missing or wrong token"},
    403: {"model": ErrorOut, "description": "Writes are disabled"},
    408: {"model": ErrorOut, "description": "The body did not arrive in time"},
    413: {"model": ErrorOut, "description": "Body over the size limit"},
    501: {"model": ErrorOut, "description": "The server searches a Typesense cluster, which writes do not reach"},
    422: {"model": ErrorOut, "description": "Invalid record"},
})
RECORDS_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "type": "array", "maxItems": MAX_WRITE_RECORDS, "items": {"type": "object"},
    "description": f"Records in the corpus schema, at most {MAX_WRITE_RECORDS}.",
}}}}}


def require_corpus_write_access(request: Request) -> None:
    """POST /api/papers (the shared corpus): writes enabled and the server's write token, with
    or without accounts (a user's token changes only that user's tables)."""
    settings = request.app.state.settings
    if not settings.enable_writes:
        raise ApiError(403, "writes_disabled", "this server is read-only; start it with --enable-writes and a token")
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.encode(), settings.write_token.encode()):
        raise ApiError(401, "unauthorized", "writes need 'Authorization: Bearer <token>' with the server's write token")


def require_write_access(request: Request) -> None:
    """The gate of every change to a user's tables (library, saved searches, feed token), run
    before a byte of the body is read. Without accounts: the server's write token (as for the
    corpus). With accounts: the request's user (api/auth.py: a user's API token), nothing else."""
    if accounts_on(request):
        require_user(request)
        return
    require_corpus_write_access(request)


_write_path_lock = threading.Lock()


def write_path(app) -> tuple[Store, GroupRefresher]:
    """The app's one writable Store (other writers' commits are seen inside each write
    transaction) and its index refresher, made on the first write."""
    with _write_path_lock:
        if getattr(app.state, "write_path", None) is None:
            data_dir, service = app.state.settings.data_dir, app.state.service
            store = Store(data_dir)
            app.state.write_path = (store, GroupRefresher(lambda: refresh_indexes(data_dir, service), store.max_seq))
        return app.state.write_path


def refresh_indexes(data_dir, service) -> None:
    """Index what changed in the store, then make the running service see it at once."""
    lexical.update(data_dir)
    backend = getattr(service, "backend", None)
    if backend is not None and hasattr(backend, "refresh"):
        backend.refresh(force=True)


async def read_json_records(request: Request) -> list[dict]:
    """The body as a JSON array of at most MAX_WRITE_RECORDS objects (read after the gate)."""
    body = await request.body()  # under RequestLimits: 413 past the cap, 408 when it stalls
    try:
        records = orjson.loads(body)
    except orjson.JSONDecodeError as problem:
        raise ApiError(422, "invalid_body", f"the body is not valid JSON: {problem}") from None
    if not isinstance(records, list):
        raise ApiError(422, "invalid_body", "the body must be a JSON array of records")
    if len(records) > MAX_WRITE_RECORDS:
        raise ApiError(422, "invalid_body", f"at most {MAX_WRITE_RECORDS} records per request, got {len(records):,}")
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            raise ApiError(422, "invalid_record", f"record {position}: not a JSON object",
                           [{"record": position, "problem": "not a JSON object"}])
    return records


@router.post("/papers", summary="Add or update papers (disabled unless enabled, token required)",
             dependencies=[Depends(require_corpus_write_access)], openapi_extra=RECORDS_BODY)
async def add_papers(request: Request) -> dict:
    """Records in the shared corpus schema; each is validated, then upserted into the store
    and the search indexes are refreshed."""
    if not isinstance(getattr(request.app.state.service, "backend", None), TantivyBackend):
        # A write lands in the data dir's store and embedded index; a Typesense cluster would
        # never see it, so saying "added" would be untrue for the searches this server answers.
        raise ApiError(501, "writes_not_supported", "this server searches a Typesense cluster, which API writes do not "
                       "reach; add papers with 'papersift ingest' and push them with 'papersift index --backend typesense'")
    records = await read_json_records(request)
    return await run_in_threadpool(store_records, request, records)


def store_records(request: Request, records: list[dict]) -> dict:
    papers = []
    for position, record in enumerate(records):
        try:
            papers.append(paper_from_dict(record, source="api"))
        except RecordError as problem:
            raise ApiError(422, "invalid_record", f"record {position}: {problem}",
                           [{"record": position, "problem": str(problem)}]) from None
    store, refresher = write_path(request.app)
    counts = store.upsert(papers)  # one transaction; records with one id: the first wins (fold_same_id)
    refresher.wait_indexed(store.max_seq())  # searchable when this answers; concurrent POSTs share updates
    return {"added": counts.added, "updated": counts.updated, "merged": counts.merged, "unchanged": counts.unchanged}


_user_tables_lock = threading.Lock()
T = TypeVar("T")


def user_tables_of(request: Request, name: str, make: Callable[..., T]) -> T:
    """The request's user's `name` object over the store (the library, saved searches), the one
    way routes reach a user's tables. Without accounts: the local user's, kept on the app, on
    user_store's Store (the write path's when writes are on, else the one read-only Store).
    With accounts: made for this request's user (api/auth.py) on the write path's Store, once
    per request and never kept across requests, so no request can get another user's object;
    anonymous: LoginRequired.
    `make(store, user_id)` builds it (UserTables subclasses do)."""
    if accounts_on(request):
        user = require_user(request)
        made = request.scope.setdefault("papersift_tables", {})  # one object per name and request
        if name not in made:
            made[name] = tables_for(request, make, user.user_id)
        return made[name]
    app = request.app
    store = user_store(app)  # before the lock: user_store takes it too
    with _user_tables_lock:
        current = getattr(app.state, name, None)
        if current is None or current.store is not store:
            current = make(store)
            setattr(app.state, name, current)
        return current


def tables_for(request: Request, make: Callable[..., T], user_id: str) -> T:
    """`make`'s object for a user the caller has established (the request's user, or a private
    feed's token owner) on the server's user store."""
    return make(user_store(request.app), user_id)


def user_store(app) -> Store:
    """The Store user tables live on: the write path's when writes or accounts are on (a server
    with accounts writes sessions), else one read-only Store kept on the app."""
    settings = app.state.settings
    if settings.enable_writes or getattr(settings, "accounts", False):
        return write_path(app)[0]
    with _user_tables_lock:
        if getattr(app.state, "readonly_user_store", None) is None:
            app.state.readonly_user_store = Store(settings.data_dir, readonly=True)
        return app.state.readonly_user_store
