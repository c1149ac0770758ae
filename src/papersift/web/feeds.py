"""Atom feeds (RFC 4287) of a search, a venue (or venue-year) and an author.

    /feeds/search?<the search page's parameters>   the same results /api/search gives
    /feeds/venue/{venue}[/{year}]                  the venue's papers
    /feeds/author/{id-or-name}                     the author's papers (the author page's person)

Every feed lists newest first (a search feed follows `sort=` when the URL names one: a feed is
for what is new, so its default is `newest`, not the page's `relevance`), at most
MAX_FEED_ENTRIES entries. Ids are URLs that do not depend on the index: an entry's id is its
paper page (`<base>/paper/<id>`: the paper's stable id, never its seq), a feed's id its own URL
with the parameters sorted and `lang` left out. Dates come from the data: an entry's
updated/published is 1 January of its year (the only date papers carry); the feed's updated is
the end of the store's latest finished ingest run, or its newest entry's date when the store
records none. Rebuilding the index changes none of them.

The pages link their feed with <link rel="alternate" type="application/atom+xml">
(page_feeds(), called by web.routes.render for every page).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Annotated, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from feedgen.feed import FeedGenerator
from pydantic import Field

from papersift import __version__
from papersift.api.backend import request_lang, service_of
from papersift.api.errors import ApiError
from papersift.api.params import PaperParams, SearchParams
from papersift.api.people_routes import people_store
from papersift.i18n import Lang, translate
from papersift.labels import normal_label
from papersift.people.profiles import AuthorNotFound, author_profile
from papersift.people.venues import VenueNotFound, canonical_venue_name
from papersift.record import Paper
from papersift.search.types import Filters, SearchRequest

MAX_FEED_ENTRIES = 50
DEFAULT_FEED_ENTRIES = 30
MAX_SUMMARY_CHARS = 4000  # an abstract longer than this is cut in the feed (the page has it all)
ATOM_MEDIA_TYPE = "application/atom+xml; charset=utf-8"
FEED_PREFIX = "/feeds"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# Page parameters that do not change which papers a search feed lists.
_PAGE_ONLY_PARAMS = ("lang", "page", "size", "facets")

router = APIRouter(prefix=FEED_PREFIX, include_in_schema=False)


class FeedSearchParams(SearchParams):
    """The search page's parameters; newest first unless `sort` says otherwise, fewer entries."""

    sort: Literal["relevance", "newest", "oldest", "cited"] = "newest"
    size: int = Field(DEFAULT_FEED_ENTRIES, ge=1, le=MAX_FEED_ENTRIES,
                      description=f"Entries, at most {MAX_FEED_ENTRIES}.")


class FeedParams(PaperParams):
    size: int = Field(DEFAULT_FEED_ENTRIES, ge=1, le=MAX_FEED_ENTRIES)


@dataclass(frozen=True)
class FeedLink:
    title: str
    href: str


def paper_entry_id(base_url: str, paper_id: str) -> str:
    """An entry's id: the paper page's URL (stable: it holds the paper's id, nothing derived)."""
    return f"{base_url}/paper/{quote(paper_id, safe='')}"


def paper_date(paper: Paper) -> datetime:
    """1 January of the paper's year: papers carry no finer date. No year: the epoch."""
    return datetime(paper.year, 1, 1, tzinfo=timezone.utc) if paper.year else EPOCH


def _base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _canonical_url(request: Request) -> str:
    """This feed's URL with its parameters sorted and the interface language left out."""
    pairs = sorted((name, value) for name, value in request.query_params.multi_items() if name != "lang")
    query = urlencode(pairs)
    return f"{_base_url(request)}{quote(request.url.path)}" + (f"?{query}" if query else "")


def _store_updated(request: Request) -> datetime | None:
    """When the store last finished an ingest run (None when it records none)."""
    finished = people_store(request).read("SELECT MAX(finished_at) FROM ingest_runs")[0][0]
    return datetime.fromtimestamp(finished, tz=timezone.utc) if finished else None


def atom_feed(*, feed_id: str, title: str, subtitle: str, self_url: str, html_url: str, papers: list[Paper],
              base_url: str, updated: datetime | None, lang: Lang) -> bytes:
    """The Atom document: one entry per paper, in the order given."""
    feed = FeedGenerator()
    feed.id(feed_id)
    feed.title(title)
    feed.subtitle(subtitle)
    feed.author({"name": translate("site_title", lang)})  # required when an entry has no author
    feed.link(href=self_url, rel="self", type="application/atom+xml")
    feed.link(href=html_url, rel="alternate", type="text/html")
    feed.generator("papersift", version=__version__)
    feed.language("zh-CN" if lang == "zh" else "en")
    newest = max((paper_date(paper) for paper in papers), default=EPOCH)
    feed.updated(max(updated, newest) if updated else newest)
    for paper in papers:
        entry = feed.add_entry(order="append")
        page_url = paper_entry_id(base_url, paper.id)
        entry.id(page_url)
        entry.title(paper.title)
        entry.updated(paper_date(paper))
        entry.published(paper_date(paper))
        # One link only: feedgen 1.0.0 writes an entry link's href without its rel/type
        # (lkiesow/python-feedgen#135), and a link without rel means rel="alternate" (RFC 4287
        # 4.2.7.2), so a second (PDF) link would be a second alternate of the same type.
        entry.link(href=page_url, rel="alternate", type="text/html")
        if paper.authors:
            entry.author([{"name": name} for name in paper.authors])
        if paper.abstract:
            cut = paper.abstract[:MAX_SUMMARY_CHARS]
            entry.summary(cut + ("…" if len(paper.abstract) > MAX_SUMMARY_CHARS else ""))
        for term in (paper.venue and f"{paper.venue} {paper.year or ''}".strip(), paper.area, paper.status):
            if term:
                entry.category(term=term)
    return feed.atom_str(pretty=True)


def _atom_response(body: bytes) -> Response:
    return Response(body, media_type=ATOM_MEDIA_TYPE)


def _search_papers(request: Request, search: SearchRequest) -> list[Paper]:
    return [hit.paper for hit in service_of(request).search(search).hits]


@router.get("/search")
def search_feed(request: Request, params: Annotated[FeedSearchParams, Query()]) -> Response:
    lang = request_lang(request, params.lang)
    papers = _search_papers(request, params.to_request(with_facets=False))
    page_query = urlencode([(name, value) for name, value in request.query_params.multi_items() if name not in _PAGE_ONLY_PARAMS])
    described = params.q or ", ".join(f"{name}: {value}" for name in ("venue", "area", "subarea", "author", "status")
                                      for value in getattr(params, name)) or "*"
    title = f"{described} – {translate('site_title', lang)}"
    base = _base_url(request)
    return _atom_response(atom_feed(
        feed_id=_canonical_url(request), title=title, subtitle=f"sort: {params.sort}, mode: {params.mode}",
        self_url=str(request.url), html_url=f"{base}/?{page_query}", papers=papers, base_url=base,
        updated=_store_updated(request), lang=lang))


@router.get("/venue/{venue}")
def venue_feed(request: Request, venue: str, params: Annotated[FeedParams, Query()]) -> Response:
    return _venue_feed(request, venue, None, params)


@router.get("/venue/{venue}/{year}")
def venue_year_feed(request: Request, venue: str, year: int, params: Annotated[FeedParams, Query()]) -> Response:
    return _venue_feed(request, venue, year, params)


def _venue_feed(request: Request, venue: str, year: int | None, params: FeedParams) -> Response:
    lang = request_lang(request, params.lang)
    try:
        name = canonical_venue_name(people_store(request), venue[:100])
    except VenueNotFound as exc:
        raise ApiError(404, "venue_not_found", str(exc)) from exc
    filters = Filters(venues=(name,), year_from=year, year_to=year)
    papers = _search_papers(request, SearchRequest(filters=filters, sort="newest", size=params.size, with_facets=False))
    if year is not None and not papers:
        raise ApiError(404, "venue_not_found", f"no papers of {name} {year}")
    label = f"{name} {year}" if year is not None else name
    base = _base_url(request)
    tail = f"/{year}" if year is not None else ""
    return _atom_response(atom_feed(
        feed_id=_canonical_url(request), title=f"{label} – {translate('site_title', lang)}",
        subtitle=f"{label}: newest papers", self_url=str(request.url),
        html_url=f"{base}/venue/{quote(name, safe='')}{tail}", papers=papers, base_url=base,
        updated=_store_updated(request), lang=lang))


@router.get("/author/{author:path}")
def author_feed(request: Request, author: str, params: Annotated[FeedParams, Query()]) -> Response:
    lang = request_lang(request, params.lang)
    try:
        profile = author_profile(people_store(request), author[:300])
    except AuthorNotFound as exc:
        raise ApiError(404, "author_not_found", str(exc)) from exc
    service = service_of(request)
    # The profile lists the person's papers newest first (year, then title).
    papers = [paper for item in profile["papers"][:params.size] if (paper := service.get(item["id"])) is not None]
    base = _base_url(request)
    return _atom_response(atom_feed(
        feed_id=_canonical_url(request), title=f"{profile['name']} – {translate('site_title', lang)}",
        subtitle=f"{profile['name']}: newest papers", self_url=str(request.url),
        html_url=f"{base}/author/{quote(author[:300], safe='')}", papers=papers, base_url=base,
        updated=_store_updated(request), lang=lang))


def page_feeds(request: Request) -> list[FeedLink]:
    """The feed(s) a page links in its <head>: the search page its search's, a venue or author
    page its own; other pages none."""
    path = request.url.path
    lang = request.query_params.get("lang")
    suffix = f"?{urlencode({'lang': lang})}" if lang in ("zh", "en") else ""
    if path == "/":
        kept = [(name, value) for name, value in request.query_params.multi_items() if name not in _PAGE_ONLY_PARAMS]
        if lang in ("zh", "en"):
            kept.append(("lang", lang))
        query = urlencode(kept)
        return [FeedLink("Atom", f"{FEED_PREFIX}/search" + (f"?{query}" if query else ""))]
    for page in ("/venue/", "/author/"):
        if path.startswith(page) and len(path) > len(page):
            return [FeedLink("Atom", FEED_PREFIX + quote(path) + suffix)]
    return []


# -- private feeds: a saved search's and a tag's recommendations, behind the user's token ------
def _private_owner(request: Request, token: str):
    """The Following of the token's user; 404 for an unknown or revoked token (never saying which)."""
    from papersift.api.auth import ANONYMOUS
    from papersift.api.writes import tables_for
    from papersift.follow.state import Following

    # The token is the reader's proof (a feed reader has no session): its owner's tables, whoever asks.
    user_id = tables_for(request, Following, ANONYMOUS).user_of_token(token[:100])
    if user_id is None:
        raise ApiError(404, "not_found", "no such feed")
    return tables_for(request, Following, user_id)


def _private_feed(request: Request, token: str, watch: str, subtitle: str, params: FeedParams) -> Response:
    from papersift.follow.saved import FollowError
    from papersift.follow.watches import list_watch

    lang = request_lang(request, params.lang)
    following = _private_owner(request, token)
    try:
        listing = list_watch(service_of(request), following, watch, feed_sort="newest")
    except FollowError:
        raise ApiError(404, "not_found", "no such feed") from None
    base = _base_url(request)
    kind, _, key = watch.partition(":")
    html_url = f"{base}/saved/{key}" if kind == "saved" else f"{base}/library/recommend?{urlencode({'tag': key})}"
    # The feed's id leaves the token out: a new token does not make the same feed a new one.
    return _atom_response(atom_feed(
        feed_id=f"{base}{FEED_PREFIX}/private/{following.user_id}/{quote(watch, safe=':')}",
        title=f"{listing.title} – {translate('site_title', lang)}", subtitle=subtitle, self_url=str(request.url),
        html_url=html_url, papers=listing.papers[:params.size], base_url=base, updated=_store_updated(request), lang=lang))


@router.get("/private/{token}/saved/{saved_id}")
def saved_search_feed(request: Request, token: str, saved_id: int, params: Annotated[FeedParams, Query()]) -> Response:
    return _private_feed(request, token, f"saved:{saved_id}", "saved search, newest first", params)


@router.get("/private/{token}/tag/{tag:path}")  # a tag may hold '/' (sent as %2F, which the server decodes)
def tag_recommendations_feed(request: Request, token: str, tag: str, params: Annotated[FeedParams, Query()]) -> Response:
    return _private_feed(request, token, f"tag:{normal_label(tag[:100])}", "recommended for this tag", params)
