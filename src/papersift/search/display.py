"""How search results are shown, the same in the terminal, the JSON API and the page."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from urllib.parse import quote

from papersift.config import AUTHORS_SHOWN, MAX_PAGE
from papersift.i18n import MESSAGES
from papersift.index.analyzers import has_cjk
from papersift.record import Paper
from papersift.search.types import FacetValue, Hit, SearchResponse


def language_of(text: str) -> str:
    """The page language a query implies: Chinese if it has CJK characters."""
    return "zh" if has_cjk(text) else "en"


def format_authors(authors: tuple[str, ...] | list[str], lang: str = "en") -> str:
    """The first AUTHORS_SHOWN names, then "et al." (English) or "等" (Chinese)."""
    shown = ", ".join(authors[:AUTHORS_SHOWN])
    if len(authors) <= AUTHORS_SHOWN:
        return shown
    et_al = MESSAGES["et_al"]["en" if lang == "en" else "zh"]
    return f"{shown} {et_al}" if lang == "en" else f"{shown}{et_al}"


def paper_json(paper: Paper) -> dict:
    record = paper.to_dict()
    record.pop("source", None)
    record["topic"] = paper.topic
    return record


def hit_json(hit: Hit, lang: str) -> dict:
    return {
        "paper": paper_json(hit.paper),
        "score": hit.score if math.isfinite(hit.score) else 0.0,
        "highlights": dict(hit.highlights),
        "topic_predicted": hit.topic_predicted,
        "topic_confidence": hit.topic_confidence,
        "authors_line": format_authors(hit.paper.authors, lang),
    }


def facets_json(facets: dict[str, list[FacetValue]]) -> dict:
    return {name: [{"value": item.value, "count": item.count} for item in values] for name, values in facets.items()}


def page_count(total: int, size: int, max_page: int) -> int:
    return min(max_page, math.ceil(total / size)) if size else 0


def search_json(response: SearchResponse, lang: str, max_page: int = MAX_PAGE) -> dict:
    """The JSON shape of a search response, the same for `papersift search --json` and the API."""
    request = response.request
    return {
        "query": request.query,
        "mode": request.mode,
        "sort": request.sort,
        "page": request.page,
        "size": request.size,
        "pages": page_count(response.total, request.size, max_page),
        "total": response.total,
        "total_counts": response.total_counts,
        "keyword_matches": response.keyword_matches,
        "hits": [hit_json(hit, lang) for hit in response.hits],
        "facets": facets_json(response.facets),
        "took_ms": round(response.took_ms, 3),
        "notices": list(response.notices),
        "reading": reading_json(response.reading),
        "intent": intent_json(response.intent),
        "suggestion": response.suggestion,
        "lang": lang,
    }


def intent_json(intent) -> dict | None:
    """What the query was read as (search/intent.py Intent), or None for a plain search."""
    if intent is None:
        return None
    person = intent.person
    unknown = intent.unknown
    return {
        "kind": intent.kind,
        "paper_id": intent.matched_id,
        "pinned": list(intent.pinned),
        "person": None if person is None else {
            "name": person.name, "key": person.key, "papers": len(person.paper_ids),
            "url": f"/author/{quote(person.key, safe='')}", "hint": hint_json(person.hint),
            "namesakes": [{"name": other.name, "key": other.key, "papers": other.papers,
                           "url": f"/author/{quote(other.key, safe='')}", "hint": hint_json(other.hint)}
                          for other in person.namesakes],
            "more_namesakes": person.more_namesakes},
        "unknown_id": None if unknown is None else {"kind": unknown[0], "value": unknown[1],
                                                   "command": intent.fetch_command},
        "filter_words": list(intent.filter_words),
        "searched": intent.text,
    }


def hint_json(hint) -> dict | None:
    """What tells a person from namesakes (search/intent.py Hint), or None."""
    if hint is None:
        return None
    return {"affiliation": hint.affiliation, "coauthor": hint.coauthor, "venues": list(hint.venues),
            "years": list(hint.years) if hint.years else None}


def hint_text(hint) -> str:
    """A hint as the terminal shows it after a person's paper count: " · MIT · with Jane Doe · NeurIPS, ICML · 2019–2024"."""
    if hint is None:
        return ""
    years = None if hint.years is None else (
        str(hint.years[0]) if hint.years[0] == hint.years[1] else f"{hint.years[0]}–{hint.years[1]}")
    coauthor = f"with {hint.coauthor}" if hint.coauthor else None
    return "".join(f" · {part}" for part in (hint.affiliation, coauthor, ", ".join(hint.venues), years) if part)


def reading_json(reading) -> dict | None:
    """A Chinese query's English reading (search/termlexicon.py QueryReading), or None."""
    if reading is None:
        return None
    return {"english": reading.english, "authors": list(reading.authors),
            "terms": [{"chinese": term.chinese, "english": term.english, "alternatives": list(term.alternatives),
                       "confidence": round(term.confidence, 3), "sure": term.shown_sure, "source": term.source}
                      for term in reading.terms]}


MAX_GLOSSES = 5  # Chinese glosses shown under one hit
_MARKED_RUN = re.compile(r"<mark>[^<]+</mark>(?:[\s\-]+<mark>[^<]+</mark>)*")
_MARK_TAG = re.compile(r"</?mark>")


def term_glosses(hit: Hit, lookup_en: Callable[[str], list] | None = None) -> list[tuple[str, str]]:
    """(English term, Chinese gloss) for the hit's matched words that the bilingual glossary
    knows (search/glossary.py lookup_en): each run of adjacent marked words as a phrase, else its
    words one by one; at most MAX_GLOSSES, title first. For a Chinese reader on the zh page."""
    if lookup_en is None:
        from papersift.search import glossary

        lookup_en = glossary.lookup_en
    found: dict[str, str] = {}
    for field in ("title", "abstract"):
        for run in _MARKED_RUN.findall(hit.highlights.get(field) or ""):
            phrase = html.unescape(_MARK_TAG.sub("", run))
            words = re.split(r"[\s\-]+", phrase)
            for text in (phrase, *(words if len(words) > 1 else ())):
                entries = lookup_en(text)
                if entries and text.lower() not in found:
                    found[text.lower()] = entries[0].zh
                    break
            if len(found) >= MAX_GLOSSES:
                return list(found.items())
    return list(found.items())
