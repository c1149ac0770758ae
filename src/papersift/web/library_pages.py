"""The library page (/library: tags with counts, each paper's mark, reading state and note,
export links) and a tag's recommendations (/library/recommend?tag=...), read-only and
server-rendered like the other pages. Library changes go through the CLI or the token-gated API;
a tag's recommendations page marks the ones never shown (new=1: only them), has the "mark all
as seen" form (web/forms.py) and links its private feed when the user has a feed token. Each
recommended paper carries the search hits' tag / like / not-interested controls
(web/library_forms.py), so a recommendation can be acted on where it is shown."""

from __future__ import annotations

import time
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field, field_validator

from papersift import extras
from papersift.api.backend import request_lang
from papersift.api.library_routes import RecommendParams, library_of, recommendations_for
from papersift.api.params import PaperParams
from papersift.background import read_status
from papersift.i18n import Lang, translate
from papersift.library.entries import MAX_TAG_CHARS, LibraryError
from papersift.record import Paper
from papersift.web.library_forms import marks_context
from papersift.web.library_view import render_library
from papersift.web.saved_pages import form_context

router = APIRouter(include_in_schema=False)


class LibraryPageParams(PaperParams):
    tag: Annotated[str | None, Field(max_length=MAX_TAG_CHARS)] = None


class RecommendPageParams(RecommendParams):
    """The API's recommendation parameters (tag, k, the search filters) and the page's own."""

    lang: Lang | None = None
    new: bool = False  # only those never marked seen

    @field_validator("lang", mode="before")
    @classmethod
    def _blank_lang_is_unset(cls, value):
        return None if value == "" else value

@router.get("/library", response_class=HTMLResponse)
def library_page(request: Request, params: Annotated[LibraryPageParams, Query()]) -> HTMLResponse:
    lang, tag = request_lang(request, params.lang), params.tag
    library = library_of(request)
    entries = library.entries(tag=tag)
    papers = library.store.get_many([entry.paper_id for entry in entries])
    rows = [(entry, papers.get(entry.paper_id), time.strftime("%Y-%m-%d", time.localtime(entry.added_at)))
            for entry in entries]
    back = f"/library?{urlencode({'tag': tag, 'lang': lang} if tag else {'lang': lang})}"
    return render_library(request, "library.html", lang, tags=library.tags(), rows=rows, tag=tag,
                   can_recommend=extras.available("recommend"), forms=form_context(request), back=back)


def stage_text(request: Request, name: str, lang: Lang) -> str | None:
    """'step 2 of 7: library features' while quickstart's background chain makes `name` (or an
    earlier stage before it); None when no live chain will make it."""
    status = read_status(request.app.state.settings.data_dir)
    if status is None or status.state_of(name) not in ("waiting", "running"):
        return None
    running = status.running or {"name": name}
    number = next(index for index, stage in enumerate(status.stages, start=1) if stage["name"] == running["name"])
    return translate("stage_progress", lang, number=number, total=len(status.stages),
                     name=translate(f"stage_{running['name']}", lang))


def reason(paper: Paper | None, because: list[tuple[Paper, float]], tag: str | None, lang: Lang) -> str:
    """The hit's own reason in the reader's language: the tagged (or library) paper it is most
    like, with the similarity and the words they share, then the next nearest."""
    from papersift.library.recommend import shared_words

    if not because:
        return ""
    (nearest, score), rest = because[0], because[1:]
    key = "rec_because_tag" if tag is not None else "rec_because_all"
    text = translate(key, lang, title=nearest.title, tag=tag or "", score=f"{score:.2f}")
    words = shared_words(f"{paper.title} {paper.abstract or ''}", f"{nearest.title} {nearest.abstract or ''}") \
        if paper is not None else []
    if words:
        text += translate("rec_shared_words", lang, words=translate("word_separator", lang).join(words))
    return text + "".join(translate("rec_because_then", lang, title=other.title) for other, _ in rest[:1])


@router.get("/library/recommend", response_class=HTMLResponse)
def recommend_page(request: Request, params: Annotated[RecommendPageParams, Query()]) -> HTMLResponse:
    lang, tag = request_lang(request, params.lang), params.tag
    hits: list = []
    problem: str | None = None
    papers: dict = {}
    if not extras.available("recommend"):
        problem = translate("rec_no_extra", lang)
    else:
        from papersift.library.features import FeaturesMissing
        from papersift.library.recommend import NothingToLearn

        try:
            hits, _, papers = recommendations_for(request, params)
        except FeaturesMissing:
            stage = stage_text(request, "library features", lang)
            problem = translate("rec_preparing", lang, stage=stage) if stage else translate("rec_not_prepared", lang)
        except NothingToLearn:
            stage = stage_text(request, "library features", lang)
            problem = (translate("rec_preparing", lang, stage=stage) if stage else
                       translate("rec_nothing_tag", lang, tag=tag) if tag is not None else translate("rec_nothing_all", lang))
        except LibraryError as error:
            problem = translate("rec_invalid", lang, message=str(error))
    rows = [(hit, papers.get(hit.paper_id), reason(papers.get(hit.paper_id), [(papers[pid], score) for pid, score
                                                                              in hit.because if pid in papers], tag, lang))
            for hit in hits]
    fresh, private_feed, forms = set(), None, {"writes": False, "csrf": None}
    if tag:  # a tag's recommendations remember what was shown (follow/watches.py): mark the new ones
        from papersift.api.saved_routes import following_of
        from papersift.follow.watches import new_ids

        following = following_of(request)
        fresh = new_ids("tag", [paper for _, paper, _ in rows if paper is not None], {}, following.mark(f"tag:{tag}"))
        token = following.feed_token()
        private_feed = f"/feeds/private/{quote(token, safe='')}/tag/{quote(tag, safe='')}" if token else None
        forms = form_context(request)
        if params.new:
            rows = [row for row in rows if row[0].paper_id in fresh]
    back = f"/library/recommend?{urlencode({'tag': tag or '', 'lang': lang})}"
    # The hits' tag / like / not-interested controls: the search hits' own (library_forms, _hit.html)
    marks = marks_context(request, [paper.id for _, paper, _ in rows if paper is not None])
    return render_library(request, "library_recommend.html", lang, tag=tag, rows=rows, problem=problem, new_ids=fresh,
                   private_feed=private_feed, forms=forms, back=back, only_new=params.new, params=params, marks=marks)
