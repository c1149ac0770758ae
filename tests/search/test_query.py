"""The query language: what each construct parses to, and clear errors for hostile input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papersift.config import MAX_QUERY_CHARS
from papersift.search.query import AnyOf, FieldValue, Words, merge_filters, natural_text_query, parse_query
from papersift.search.types import Filters, QuerySyntaxError


def test_plain_words_are_all_required():
    parsed = parse_query("graph neural networks")
    assert parsed.required == (Words("graph"), Words("neural"), Words("networks"))
    assert parsed.match_all and parsed.excluded == () and parsed.filters.is_empty()


def test_phrase_exclusion_and_or():
    parsed = parse_query('"graph neural" -transformer diffusion OR flow -"large language"')
    assert parsed.required == (Words("graph neural", phrase=True), AnyOf((Words("diffusion"), Words("flow"))))
    assert parsed.excluded == (Words("transformer"), Words("large language", phrase=True))


def test_not_is_an_alias_of_minus_and_and_is_the_default():
    assert parse_query("a NOT b").excluded == parse_query("a -b").excluded
    assert parse_query("a AND b").required == parse_query("a b").required


def test_field_filters_end_up_in_filters():
    parsed = parse_query('venue:ICML venue:neurips area:"Deep Learning" subarea:Algorithms status:oral '
                         'year:2020..2024 author:"Yoshua Bengio"')
    assert parsed.required == ()
    assert parsed.filters == Filters(
        venues=("ICML", "neurips"), year_from=2020, year_to=2024, areas=("Deep Learning",),
        subareas=("Algorithms",), authors=("Yoshua Bengio",), statuses=("oral",),
    )


@pytest.mark.parametrize("value, expected", [
    ("2021", (2021, 2021)), ("2020..2024", (2020, 2024)), ("2020-2024", (2020, 2024)),
    ("2020..", (2020, None)), ("..2019", (None, 2019)),
])
def test_year_forms(value, expected):
    filters = parse_query(f"year:{value}").filters
    assert (filters.year_from, filters.year_to) == expected


def test_title_and_keyword_fields_restrict_words():
    parsed = parse_query('title:"attention is all" keyword:robustness')
    assert parsed.required == (Words("attention is all", phrase=True, field="title"),
                               Words("robustness", field="keywords"))


def test_excluded_filter_and_or_of_filter_values():
    parsed = parse_query("-venue:COLT venue:ICML OR venue:UAI author:A OR author:B")
    assert parsed.excluded == (FieldValue("venues", "COLT"),)
    assert parsed.filters.venues == ("ICML", "UAI")
    assert parsed.required == (AnyOf((FieldValue("authors", "A"), FieldValue("authors", "B"))),)


def test_unknown_field_prefix_is_an_ordinary_word():
    assert parse_query("arXiv:2101.00001 10:30").required == (Words("arXiv:2101.00001"), Words("10:30"))


def test_lone_dash_is_punctuation():
    assert parse_query("BERT - a review").required == (Words("BERT"), Words("a"), Words("review"))


@pytest.mark.parametrize("query, position, problem", [
    ('graph "neural net', 6, "unclosed quote"),
    ("OR graph", 0, "OR needs a term"),
    ("graph OR", 6, "OR needs a term"),
    ("a OR OR b", 5, "OR needs a term"),
    ("a OR -b", 2, "cannot join an excluded"),
    ("venue:", 0, "needs a value"),
    ('""', 0, "empty phrase"),
    ("year:20x4", 5, "year must look like"),
    ("year:2024..2020", 5, "reversed"),
    ("year:2019 year:2021", 10, "no year at all"),
    ("venue:ICML OR graph", 14, "not a mix"),
    ("-year:2020", 0, "cannot be excluded"),
    ("x NOT", 2, "NOT must be followed"),
])
def test_syntax_errors_name_position_and_problem(query, position, problem):
    with pytest.raises(QuerySyntaxError) as caught:
        parse_query(query)
    assert caught.value.position == position
    assert problem in caught.value.problem


def test_long_queries_are_refused_with_the_limit():
    with pytest.raises(QuerySyntaxError, match=f"limit {MAX_QUERY_CHARS:,}"):
        parse_query("a" * 10_000)


def test_control_characters_are_spaces():
    assert parse_query("graph\x00neural\x1b[31m\u200bnets").required == (
        Words("graph"), Words("neural"), Words("[31m"), Words("nets"))


def test_natural_text_has_no_operators():
    parsed = natural_text_query('Vitamin D "reduces" -risk OR year:2020')
    assert not parsed.match_all
    assert parsed.filters.is_empty() and parsed.excluded == ()
    assert len(parsed.required) == 6


def test_merge_filters_unites_values_and_intersects_years():
    merged = merge_filters(Filters(venues=("ICML",), year_from=2018), Filters(venues=("UAI", "ICML"), year_from=2020, year_to=2022))
    assert merged == Filters(venues=("ICML", "UAI"), year_from=2020, year_to=2022)


QUERY_ALPHABET = st.sampled_from(list('ab -"():OR AND NOT venue:year:..2020 author:\x00\x1f\u3000深度学习é*\\'))


@settings(max_examples=400, deadline=None)
@given(st.lists(QUERY_ALPHABET, max_size=60).map("".join))
def test_any_input_parses_or_fails_cleanly(query):
    try:
        parsed = parse_query(query)
    except QuerySyntaxError as error:
        assert 0 <= error.position <= len(query)
        assert error.problem
    else:
        assert isinstance(parsed.required, tuple)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_unicode_never_crashes(query):
    try:
        parse_query(query)
    except QuerySyntaxError as error:
        assert 0 <= error.position <= len(query)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_printable_queries_skip_cleaning_without_changing_it(text):
    import unicodedata

    from papersift.search.query import _clean

    expected = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)
    assert _clean(text) == expected
