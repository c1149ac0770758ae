"""/api/library: the local user's library (tags, like / not interested, notes, reading state),
its export and import, and recommendations learned from it.

Reads are open like the rest of the API on a personal server (bound to 127.0.0.1). Every
change goes through the write gate of POST /api/papers (api.writes.require_write_access:
writes enabled and the bearer token), which runs before a byte of the body is read; bodies
are then read under the app's size and time limits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from papersift.api.auth import request_user
from papersift.api.backend import service_of
from papersift.api.errors import ApiError
from papersift.api.params import QueryParams
from papersift.api.schemas import ErrorOut
from papersift.api.writes import require_write_access, user_tables_of
from papersift.library.entries import MAX_NOTE_CHARS, MAX_TAG_CHARS, RATINGS, Library, LibraryError
from papersift.library.interchange import (
    MAX_IMPORT_BYTES,
    MEDIA_TYPES,
    SUFFIXES,
    ImportBudget,
    LibraryFormatError,
    export_library,
    import_library,
)
from papersift.library.search_filter import filtered_paper_ids, query_tags, with_tag_papers
from papersift.search.query import merge_filters, parse_query
from papersift.search.types import Filters, QuerySyntaxError, SearchRequest, SearchResponse

MAX_IDS = 1000
router = APIRouter(prefix="/api/library", tags=["library"], responses={
    401: {"model": ErrorOut, "description": "Missing or wrong token (changes)"},
    403: {"model": ErrorOut, "description": "Writes are disabled (changes)"},
    413: {"model": ErrorOut, "description": "Body over the size limit"},
    422: {"model": ErrorOut, "description": "Invalid body or parameter, or an unknown paper id"},
})
PaperIds = Annotated[list[Annotated[str, Field(min_length=1, max_length=300)]], Field(min_length=1, max_length=MAX_IDS)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TagBody(_Body):
    tag: Annotated[str, Field(min_length=1, max_length=MAX_TAG_CHARS)]
    paper_ids: PaperIds


class RatingBody(_Body):
    rating: Literal["like", "dislike", "none"] = Field(description="dislike: not interested")
    paper_ids: PaperIds


class NoteBody(_Body):
    paper_id: Annotated[str, Field(min_length=1, max_length=300)]
    note: Annotated[str | None, Field(max_length=MAX_NOTE_CHARS, description="null or blank removes the note")] = None


class ReadingBody(_Body):
    state: Literal["to-read", "read", "none"]
    paper_ids: PaperIds


class RemoveBody(_Body):
    paper_ids: PaperIds


def _body_doc(model: type[BaseModel]) -> dict:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}


def library_of(request: Request) -> Library:
    return user_tables_of(request, "library", Library)


def search_with_tags(request: Request, service, search: SearchRequest) -> SearchResponse:
    """service.search with the query's `tag:NAME` resolved in the request's user's library (the
    library is only opened when the query has a tag:); an unknown tag: no hits and a notice."""
    if not (search.filters.tags or query_tags(search.query)):
        return service.search(search)
    search, notices = with_tag_papers(library_of(request), search)
    response = service.search(search)
    return replace(response, notices=[*response.notices, *notices]) if notices else response


async def _parse(request: Request, model: type[BaseModel]) -> BaseModel:
    body = await request.body()  # after the gate, under RequestLimits
    try:
        return model.model_validate_json(body)
    except ValidationError as problem:
        details = [{"param": ".".join(str(part) for part in error["loc"]), "problem": error["msg"]}
                   for error in problem.errors()[:20]]
        message = "; ".join(f"{detail['param'] or 'body'}: {detail['problem']}" for detail in details)
        raise ApiError(422, "invalid_body", message, details) from None


def _entries_json(library: Library, entries) -> list[dict]:
    papers = library.store.get_many([entry.paper_id for entry in entries])
    listed = []
    for entry in entries:
        paper = papers.get(entry.paper_id)
        summary = None if paper is None else {"title": paper.title, "venue": paper.venue, "year": paper.year,
                                              "authors": list(paper.authors[:10]), "url": paper.url}
        listed.append({**entry.to_dict(), "paper": summary})
    return listed


async def _change(request: Request, model: type[BaseModel], apply) -> dict:
    body = await _parse(request, model)

    def run() -> dict:
        library = library_of(request)
        try:
            changed = apply(library, body)
        except LibraryError as problem:
            raise ApiError(422, "invalid_change", str(problem)) from None
        return {"ok": True, "changed": changed}

    return await run_in_threadpool(run)


@router.get("", summary="The library: entries (newest first) and tag counts")
def list_library(request: Request,
                 tag: Annotated[str | None, Query(max_length=MAX_TAG_CHARS)] = None,
                 rating: Annotated[Literal["like", "dislike", "none"] | None, Query()] = None,
                 reading: Annotated[Literal["to-read", "read"] | None, Query()] = None) -> dict:
    library = library_of(request)
    entries = library.entries(tag=tag, rating=RATINGS[rating] if rating else None, reading=reading)
    return {"user": library.user_id, "total": len(entries), "tags": library.tags(),
            "entries": _entries_json(library, entries)}


@router.get("/tags", summary="Tags with their paper counts")
def list_tags(request: Request) -> dict:
    return {"tags": library_of(request).tags()}


@router.get("/export", summary="The whole library (or one tag) as BibTeX, RIS, CSL-JSON or JSON", response_class=Response,
            responses={200: {"content": {"application/x-bibtex": {}, "application/x-research-info-systems": {},
                                         "application/vnd.citationstyles.csl+json": {}, "application/json": {}}}})
def export(request: Request, format: Annotated[Literal["bibtex", "ris", "csl-json", "json"], Query()] = "bibtex",
           tag: Annotated[str | None, Query(max_length=MAX_TAG_CHARS)] = None) -> Response:
    body = export_library(library_of(request), format, tag)
    return Response(body, media_type=MEDIA_TYPES[format],
                    headers={"Content-Disposition": f'attachment; filename="papersift-library.{SUFFIXES[format]}"'})


@router.post("/tag", summary="Tag papers (adds them to the library)", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(TagBody))
async def tag(request: Request) -> dict:
    return await _change(request, TagBody, lambda library, body: library.tag(body.paper_ids, body.tag))


@router.post("/untag", summary="Remove a tag from papers", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(TagBody))
async def untag(request: Request) -> dict:
    return await _change(request, TagBody, lambda library, body: library.untag(body.paper_ids, body.tag))


@router.post("/rating", summary="Like, mark not interested (dislike), or clear", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(RatingBody))
async def rate(request: Request) -> dict:
    def apply(library: Library, body: RatingBody) -> int:
        library.rate(body.paper_ids, RATINGS[body.rating])
        return len(body.paper_ids)

    return await _change(request, RatingBody, apply)


@router.post("/note", summary="Set or remove a paper's note", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(NoteBody))
async def note(request: Request) -> dict:
    def apply(library: Library, body: NoteBody) -> int:
        library.set_note(body.paper_id, body.note)
        return 1

    return await _change(request, NoteBody, apply)


@router.post("/reading", summary="Set the reading state (to-read, read, none)", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(ReadingBody))
async def reading(request: Request) -> dict:
    def apply(library: Library, body: ReadingBody) -> int:
        library.set_reading(body.paper_ids, body.state)
        return len(body.paper_ids)

    return await _change(request, ReadingBody, apply)


@router.post("/remove", summary="Drop papers from the library", dependencies=[Depends(require_write_access)],
             openapi_extra=_body_doc(RemoveBody))
async def remove(request: Request) -> dict:
    return await _change(request, RemoveBody, lambda library, body: library.remove(body.paper_ids))


@router.post("/import", summary="Import BibTeX, RIS, CSL-JSON or a papersift library JSON; entries matched to papers",
             dependencies=[Depends(require_write_access)],
             openapi_extra={"requestBody": {"required": True, "content": {"text/plain": {"schema": {"type": "string"}}}}})
async def import_file(request: Request,
                      format: Annotated[Literal["bibtex", "ris", "csl-json", "json"] | None, Query()] = None,
                      tag: Annotated[str | None, Query(max_length=MAX_TAG_CHARS)] = None,
                      dry_run: Annotated[bool, Query()] = False) -> dict:
    """The body is the file (at most MAX_IMPORT_BYTES, MAX_IMPORT_ENTRIES entries: refused with
    413 as soon as the body passes either). Matched entries are merged in one transaction;
    `problems` has one line per entry that matched no paper. One import per user at a time (429)."""
    with import_slot(request):
        raw = await read_import(request.stream(), request.headers.get("content-length"), "the body")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ApiError(422, "invalid_body", "the body is not UTF-8 text") from None
        del raw

        def run() -> dict:
            try:
                return import_library(library_of(request), text, format, tag=tag, dry_run=dry_run).to_dict()
            except (LibraryFormatError, LibraryError) as problem:
                raise ApiError(422, "invalid_import", str(problem)) from None

        return await run_in_threadpool(run)


def import_slot(request: Request):
    """This request's user's import slot (api/import_slots.py); taken before the body is read."""
    user = request_user(request)
    return request.app.state.import_slots.hold(user.user_id if user else "")


async def read_import(chunks: AsyncIterator[bytes], declared: str | None, name: str) -> bytes:
    """A file to import as it arrives, refused (413) once it passes the import's byte or entry
    bound (library.interchange.ImportBudget), or at once when its declared length does."""
    if declared is not None and declared.isdigit() and int(declared) > MAX_IMPORT_BYTES:
        raise ApiError(413, "import_too_large", f"{name} is over the import limit of {MAX_IMPORT_BYTES:,} bytes")
    budget, parts = ImportBudget(name), []
    try:
        async for chunk in chunks:
            budget.feed(chunk)
            parts.append(chunk)
    except LibraryFormatError as problem:
        raise ApiError(413, "import_too_large", str(problem)) from None
    return b"".join(parts)



class RecommendParams(QueryParams):
    """A tag (or the whole library), how many, and the search's filters on the candidates: the
    same parameters (venue, year_from, year_to, area, ...) as /api/search, and `q` for its
    filters in the query language (`venue:ICML year:2023..`; words in it are not used)."""

    tag: Annotated[str | None, Field(max_length=MAX_TAG_CHARS)] = None
    k: Annotated[int, Field(ge=1, le=100)] = 20

    def candidate_filters(self) -> Filters:
        if not self.q.strip():
            return self.filters()
        try:
            return merge_filters(self.filters(), parse_query(self.q).filters)
        except QuerySyntaxError as problem:
            raise ApiError(422, "invalid_query", f"q: {problem}") from None


def recommendations_for(request: Request, params: RecommendParams):
    """(hits, what was learned, papers by id) for the request's user; raises FeaturesMissing,
    NothingToLearn or LibraryError. Filters go through the search's own filter code."""
    from papersift.library.features import load_features
    from papersift.library.recommend import recommend

    library = library_of(request)
    allowed = filtered_paper_ids(service_of(request).backend, params.candidate_filters())
    hits, learned = recommend(load_features(request.app.state.settings.data_dir), library, params.tag, params.k, allowed)
    papers = library.store.get_many([hit.paper_id for hit in hits] + [pid for hit in hits for pid, _ in hit.because])
    return hits, learned, papers


@router.get("/recommendations", summary="Papers like a tag's (or the whole library's), each explained")
def recommendations(request: Request, params: Annotated[RecommendParams, Query()]) -> dict:
    """A linear SVM trained on the tag's papers (or every tagged and liked paper) against the
    papers marked not interested and a corpus sample, over the stored vectors and tf-idf
    features; papers in the library are left out; the search filters restrict the candidates.
    Reads only what `papersift library features`
    and `papersift embed` wrote: a server never computes them (without them: no hits, and a
    notice naming the command)."""
    from papersift import extras

    if not extras.available("recommend"):
        return {"learned_from": None, "hits": [],
                "notices": ["recommendations need papersift[recommend] (scikit-learn) on the server"]}
    from papersift.library.features import FeaturesMissing
    from papersift.library.recommend import NothingToLearn, explanation

    tag = params.tag
    try:
        hits, learned, papers = recommendations_for(request, params)
    except FeaturesMissing as problem:
        return {"learned_from": None, "hits": [], "notices": [str(problem)]}
    except NothingToLearn as problem:
        raise ApiError(422, "nothing_to_learn", str(problem)) from None
    except LibraryError as problem:
        raise ApiError(422, "invalid_parameter", str(problem)) from None

    def summary(paper_id: str) -> dict | None:
        paper = papers.get(paper_id)
        return None if paper is None else {"id": paper.id, "title": paper.title, "venue": paper.venue,
                                           "year": paper.year, "authors": list(paper.authors[:10]), "url": paper.url}

    return {"learned_from": learned, "notices": [], "hits": [{
        "paper": summary(hit.paper_id), "score": hit.score,
        "because": [{"paper_id": pid, "title": getattr(papers.get(pid), "title", None), "similarity": similarity}
                    for pid, similarity in hit.because],
        "explanation": explanation([papers[pid].title for pid, _ in hit.because if pid in papers], tag),
    } for hit in hits]}
