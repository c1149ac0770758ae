"""What a watch lists (a saved search, a tag's recommendations, a venue, an author) and which
of those papers are new to the user.

The rule (docs/feeds.md, "New since last visit"): a watch lists its first WINDOW papers (a
saved search in its own sort, a venue / author newest first, a tag its top recommendations).
Searches, venues and authors follow the store: a paper is new when its seq is past the mark's
`seen_seq` (it was committed after the user was last shown the watch) and its id was not
shown then (an updated paper gets a new seq but stays old). A tag's recommendations are old
papers by nature, so there a paper is new when it was never shown. A watch without a mark has
nothing new, except a tag, whose recommendations are all new until first shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from papersift.config import MAX_PAGE_SIZE
from papersift.follow.saved import FollowError
from papersift.follow.state import Following, Mark
from papersift.record import Paper
from papersift.search.types import Filters, QuerySyntaxError, SearchRequest

WINDOW = MAX_PAGE_SIZE  # papers a search watch lists (the API's largest page)
RECOMMENDATIONS = 20  # papers a tag watch lists


@dataclass
class Listing:
    watch: str
    title: str
    papers: list[Paper]
    new_ids: set[str]
    max_seq: int  # the store's max seq read before listing: what a "seen" mark records
    problem: str | None = None
    because: dict[str, list[str]] = field(default_factory=dict)  # tag watches: paper id -> titles it is like

    @property
    def new_papers(self) -> list[Paper]:
        return [paper for paper in self.papers if paper.id in self.new_ids]


def new_ids(kind: str, papers: list[Paper], seqs: dict[str, int], mark: Mark | None) -> set[str]:
    if mark is None:
        return {paper.id for paper in papers} if kind == "tag" else set()
    return {paper.id for paper in papers if paper.id not in mark.seen_ids
            and (kind == "tag" or seqs.get(paper.id, 0) > mark.seen_seq)}


def _seqs(following: Following, papers: list[Paper]) -> dict[str, int]:
    seqs: dict[str, int] = {}
    ids = [paper.id for paper in papers]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows = following.store.read(f"SELECT id, seq FROM papers WHERE id IN ({','.join('?' * len(chunk))})", chunk)
        seqs.update({row[0]: row[1] for row in rows})
    return seqs


def list_watch(service, following: Following, watch: str, channel: str = "page", data_dir: str | Path | None = None,
               feed_sort: str | None = None) -> Listing:
    """The watch's papers now, with the new ones for this channel. `service` is a SearchService;
    `feed_sort` lists a saved search in that order instead of its own (feeds: newest first)."""
    kind, _, key = watch.partition(":")
    max_seq = following.store.max_seq()  # before listing: a paper committed meanwhile stays new
    title, problem = key, None
    because: dict[str, list[str]] = {}
    papers: list[Paper] = []
    if kind == "saved":
        saved = following.saved_search(int(key))
        title = saved.name
        try:
            request = saved.query.to_request(WINDOW)
            if feed_sort:
                request = replace(request, sort=feed_sort)  # type: ignore[arg-type]
            papers = [hit.paper for hit in service.search(request).hits]
        except QuerySyntaxError as error:
            problem = str(error)
    elif kind in ("venue", "author"):
        filters = Filters(venues=(key,)) if kind == "venue" else Filters(authors=(key,))
        papers = [hit.paper for hit in service.search(SearchRequest(filters=filters, sort="newest", size=WINDOW,
                                                                    with_facets=False)).hits]
    elif kind == "tag":
        papers, problem, because = _recommended(following, key, data_dir or service.data_dir)
    else:
        raise FollowError(f"unknown watch {watch!r}")
    found = new_ids(kind, papers, _seqs(following, papers), following.mark(watch, channel))
    return Listing(watch, title, papers, found, max_seq, problem, because)


def _recommended(following: Following, tag: str, data_dir) -> tuple[list[Paper], str | None, dict[str, list[str]]]:
    from papersift import extras

    if not extras.available("recommend"):
        return [], "recommendations need papersift[recommend] (scikit-learn)", {}
    from papersift.library.entries import Library, LibraryError
    from papersift.library.features import FeaturesMissing, load_features
    from papersift.library.recommend import NothingToLearn, recommend

    library = Library(following.store, following.user_id)
    try:
        hits, _ = recommend(load_features(data_dir), library, tag, RECOMMENDATIONS)
    except (FeaturesMissing, NothingToLearn, LibraryError) as error:
        return [], str(error), {}
    found = following.store.get_many([hit.paper_id for hit in hits] + [pid for hit in hits for pid, _ in hit.because])
    because = {hit.paper_id: [found[pid].title for pid, _ in hit.because if pid in found] for hit in hits}
    return [found[hit.paper_id] for hit in hits if hit.paper_id in found], None, because


def mark_listing_seen(following: Following, listing: Listing, channel: str = "page") -> None:
    following.mark_seen(listing.watch, listing.max_seq, [paper.id for paper in listing.papers], channel)
