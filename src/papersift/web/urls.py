"""Every page state is a URL: building the links that change one part of the state."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from papersift.api.params import FILTER_PARAMS, SearchParams

# Values left out of URLs because they are the defaults.
DEFAULTS = {"mode": "hybrid", "sort": "relevance", "page": 1, "size": 20, "facets": True, "literal": False,
            "has_code": False, "gloss": False}


class SearchState:
    """The current search (validated params) plus the interface language, as URLs."""

    def __init__(self, params: SearchParams, lang: str, path: str = "/"):
        self.params = params
        self.lang = lang
        self.path = path

    def _pairs(self, values: dict) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        for name, value in values.items():
            if value is None or value == "" or value == [] or DEFAULTS.get(name, object()) == value:
                continue
            if isinstance(value, list):
                pairs.extend((name, str(item)) for item in value)
            elif isinstance(value, bool):
                pairs.append((name, "true" if value else "false"))
            else:
                pairs.append((name, str(value)))
        return pairs

    def url(self, path: str | None = None, **changes) -> str:
        """This state with some values changed; any change but `page` goes back to page 1."""
        values = self.params.model_dump()
        values["lang"] = self.lang
        if "page" not in changes and any(name != "lang" for name in changes):
            values["page"] = 1
        values.update(changes)
        query = urlencode(self._pairs(values))
        return f"{path or self.path}?{query}" if query else (path or self.path)

    def form_fields(self, exclude: tuple[str, ...]) -> list[tuple[str, str]]:
        """(name, value) hidden fields that carry this state through a GET form."""
        values = self.params.model_dump()
        values["lang"] = self.lang
        return [(name, value) for name, value in self._pairs(values) if name not in exclude]

    def has_filter(self, name: str, value: str) -> bool:
        return value in getattr(self.params, name)

    def toggle_filter(self, name: str, value: str) -> str:
        current = list(getattr(self.params, name))
        updated = [item for item in current if item != value] if value in current else current + [value]
        changes: dict = {name: updated}
        if name == "area" and value in current:
            changes["subarea"] = []  # leaving an area leaves its subareas too
        return self.url(**changes)

    def active_filters(self) -> list[tuple[str, str, str]]:
        """(param, value, url without it) for each filter in force."""
        chips = [(name, value, self.toggle_filter(name, value)) for name in FILTER_PARAMS for value in getattr(self.params, name)]
        if self.params.year_from is not None or self.params.year_to is not None:
            years = f"{self.params.year_from or ''}–{self.params.year_to or ''}"
            chips.append(("year", years, self.url(year_from=None, year_to=None)))
        if self.params.has_code:
            chips.append(("has_code", "✓", self.url(has_code=False)))
        return chips

    def clear_filters_url(self) -> str:
        cleared: dict[str, Any] = {name: [] for name in FILTER_PARAMS}
        return self.url(**cleared, year_from=None, year_to=None, has_code=False)

    def page_url(self, page: int) -> str:
        return self.url(page=page)


def paper_path(paper_id: str, lang: str, suffix: str = "", back: str | None = None) -> str:
    """A paper's page; `back`: the search it was found in (its "Back to search" returns there)."""
    params = {"lang": lang, "back": back} if back else {"lang": lang}
    return f"/paper/{quote(paper_id, safe='')}{suffix}?{urlencode(params)}"


def local_path(target: str | None) -> str:
    """Only a path of this site (never an open redirect)."""
    return target if target and target.startswith("/") and not target.startswith("//") and "\\" not in target else "/"


def search_back(back: str | None, lang: str) -> str:
    """Where a paper page's "Back to search" goes: the search the reader came from (only this
    site's search page: never another site), else a new search."""
    if back and (back == "/" or back.startswith("/?")):
        return back
    return f"/?{urlencode({'lang': lang})}"


def author_path(name: str, lang: str) -> str:
    """An author's page, by the name as written (the page resolves it to a person)."""
    return f"/author/{quote(name, safe='')}?{urlencode({'lang': lang})}"


def export_path(paper_ids: list[str], export_format: str = "bibtex") -> str:
    """One `ids=` per paper: ids may hold commas (and slashes)."""
    return "/api/export?" + urlencode([*(("ids", paper_id) for paper_id in paper_ids), ("format", export_format)])
