from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from papersift.api.params import SearchParams
from papersift.web.urls import SearchState, export_path, paper_path


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def state(**values) -> SearchState:
    return SearchState(SearchParams.model_validate(values), values.pop("lang", "zh"))


def test_url_keeps_the_state_and_drops_defaults():
    current = state(q="graph", venue=["ICLR"], page=3, mode="keyword")
    assert query_of(current.url(page=3)) == {"q": ["graph"], "mode": ["keyword"], "venue": ["ICLR"], "page": ["3"], "lang": ["zh"]}


def test_changing_anything_but_the_page_goes_back_to_page_one():
    current = state(q="graph", page=4)
    assert "page" not in query_of(current.url(sort="newest"))
    assert query_of(current.page_url(5))["page"] == ["5"]
    assert query_of(current.url(lang="en"))["page"] == ["4"]


def test_toggle_filter_adds_and_removes_values():
    current = state(q="x", venue=["ICLR"], area=["Deep Learning"], subarea=["Robustness"])
    assert query_of(current.toggle_filter("venue", "COLT"))["venue"] == ["ICLR", "COLT"]
    assert "venue" not in query_of(current.toggle_filter("venue", "ICLR"))
    leaving_area = query_of(current.toggle_filter("area", "Deep Learning"))
    assert "area" not in leaving_area and "subarea" not in leaving_area


def test_active_filters_each_link_to_the_state_without_them():
    current = state(q="x", venue=["ICLR"], year_from=2020, year_to=2022)
    chips = {name: (value, query_of(url)) for name, value, url in current.active_filters()}
    assert chips["venue"][0] == "ICLR" and "venue" not in chips["venue"][1]
    assert chips["year"][0] == "2020–2022" and "year_from" not in chips["year"][1]
    assert query_of(current.clear_filters_url()) == {"q": ["x"], "lang": ["zh"]}


def test_form_fields_carry_the_filters_through_a_new_query():
    current = state(q="x", venue=["ICLR", "COLT"], status=["Oral"], sort="newest")
    fields = current.form_fields(("q", "mode", "sort", "page"))
    assert fields == [("venue", "ICLR"), ("venue", "COLT"), ("status", "Oral"), ("lang", "zh")]


def test_paper_and_export_paths_quote_ids():
    assert paper_path("ICLR-2024-a b/c", "en", "/similar") == "/paper/ICLR-2024-a%20b%2Fc/similar?lang=en"
    assert query_of(export_path(["A-1", "B-2"])) == {"ids": ["A-1", "B-2"], "format": ["bibtex"]}
