"""How search results are shown, the same in the terminal, the JSON API and the page."""

from __future__ import annotations

from papersift.config import AUTHORS_SHOWN
from papersift.index.analyzers import has_cjk
from papersift.search.types import SearchResponse

ET_AL = {"en": "et al.", "zh": "等"}


def language_of(text: str) -> str:
    """The page language a query implies: Chinese if it has CJK characters."""
    return "zh" if has_cjk(text) else "en"


def format_authors(authors: tuple[str, ...] | list[str], lang: str = "en") -> str:
    """The first AUTHORS_SHOWN names, then "et al." (English) or "等" (Chinese)."""
    shown = ", ".join(authors[:AUTHORS_SHOWN])
    if len(authors) <= AUTHORS_SHOWN:
        return shown
    return f"{shown} {ET_AL[lang]}" if lang == "en" else f"{shown}{ET_AL[lang]}"


def response_to_dict(response: SearchResponse) -> dict:
    """The JSON shape of a search response (CLI --json and the HTTP API)."""
    request = response.request
    return {
        "query": request.query,
        "mode": request.mode,
        "sort": request.sort,
        "page": request.page,
        "size": request.size,
        "total": response.total,
        "took_ms": round(response.took_ms, 3),
        "notices": response.notices,
        "hits": [
            {**hit.paper.to_dict(), "score": hit.score, "highlights": hit.highlights,
             "topic": hit.paper.topic, "topic_predicted": hit.topic_predicted,
             "topic_confidence": hit.topic_confidence}
            for hit in response.hits
        ],
        "facets": {name: [{"value": value.value, "count": value.count} for value in values]
                   for name, values in response.facets.items()},
    }
