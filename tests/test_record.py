"""The paper record: validation messages, topic split, ids, title normalization, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papersift.record import (
    MAX_ABSTRACT_CHARS,
    Paper,
    RecordError,
    make_paper_id,
    normalize_title,
    paper_from_dict,
    split_topic,
)


def test_corpus_records_validate_and_round_trip(sample_records):
    for record in sample_records:
        paper = paper_from_dict(record)
        assert paper.id == record["id"] and paper.venue == record["venue"] and paper.year == record["year"]
        assert paper_from_dict(paper.to_dict()) == paper
        assert paper.has_abstract


def test_title_only_records_are_marked(sample_records):
    paper = paper_from_dict(dict(sample_records[0], abstract=None))
    placeholder = paper_from_dict(dict(sample_records[0], abstract="We propose"))  # < 30 chars in the sources
    assert not paper.has_abstract and placeholder.abstract is None


@pytest.mark.parametrize(("record", "message"), [
    ({"authors": ["A"]}, "missing required field 'title'"),
    ({"title": "   "}, "field 'title' is empty"),
    ({"title": 12}, "field 'title' must be a string, got int"),
    ({"title": "T", "authors": [1]}, "field 'authors'[0] must be a string, got int"),
    ({"title": "T", "authors": {"a": 1}}, "field 'authors' must be a list of strings, got dict"),
    ({"title": "T", "year": 1850}, "field 'year' is 1850, outside 1900..2100"),
    ({"title": "T", "year": True}, "field 'year' must be an integer, got bool"),
    ({"title": "T", "year": "soon"}, "field 'year' must be an integer"),
    ({"title": "T", "year": "²"}, "field 'year' must be an integer"),  # a digit to isdigit(), not to int()
    ({"title": "T", "abstract": "a" * (MAX_ABSTRACT_CHARS + 1)}, "field 'abstract' is 100,001 characters long"),
    ({"title": "T", "abstract": "a" * 10_000_000}, "field 'abstract' is 10,000,000 characters long"),
    ("not a dict", "record must be a JSON object, got str"),
])
def test_invalid_records_name_the_field(record, message):
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        paper_from_dict(record)


def test_text_is_cleaned_and_strings_become_lists():
    paper = paper_from_dict({"title": "  A\tTitle\x00 with\n\nspaces ", "authors": "Solo Author", "keywords": "a; b, c", "year": "2020"})
    assert paper.title == "A Title with spaces"
    assert paper.authors == ("Solo Author",)
    assert paper.keywords == ("a", "b", "c")
    assert paper.year == 2020


@pytest.mark.parametrize(("topic", "expected"), [
    ("Deep Learning->Attention Mechanisms", ("Deep Learning", "Attention Mechanisms")),
    ("Deep Learning · Attention Mechanisms", ("Deep Learning", "Attention Mechanisms")),
    ("Theory", ("Theory", None)),
    ("", (None, None)),
    (None, (None, None)),
])
def test_split_topic(topic, expected):
    assert split_topic(topic) == expected


def test_area_holding_a_whole_topic_is_split():
    paper = paper_from_dict({"title": "T", "area": "Optimization->Sampling and Optimization"})
    assert (paper.area, paper.subarea, paper.topic) == ("Optimization", "Sampling and Optimization",
                                                         "Optimization · Sampling and Optimization")


def test_made_up_ids_are_stable_and_ignore_case_and_punctuation():
    first = make_paper_id("ICML", 2020, "Learning To Learn!")
    assert first == make_paper_id("ICML", 2020, "learning to  learn")
    assert first.startswith("ICML-2020-") and first != make_paper_id("ICML", 2021, "Learning To Learn!")
    assert make_paper_id(None, None, "X").startswith("PAPER-0-")
    assert paper_from_dict({"title": "Learning To Learn!", "venue": "ICML", "year": 2020}).id == first


def test_dedupe_key_and_content_hash():
    paper = Paper(id="A-1", title="Étude: Naïve Bayes", venue="ICML", year=2020, source="x")
    same_elsewhere = Paper(id="B-2", title="etude naive bayes", venue="icml", year=2020, source="y")
    assert paper.dedupe_key() == same_elsewhere.dedupe_key()
    assert paper.content_hash() == Paper(id="A-1", title="Étude: Naïve Bayes", venue="ICML", year=2020, source="z").content_hash()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_normalize_title_is_idempotent_and_never_fails(title):
    normalized = normalize_title(title)
    assert normalize_title(normalized) == normalized


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["title", "authors", "year", "abstract", "keywords", "venue", "id"]),
                       st.one_of(st.none(), st.integers(), st.text(max_size=50), st.lists(st.text(max_size=20), max_size=3))))
def test_arbitrary_input_gives_a_paper_or_a_record_error(raw):
    try:
        paper = paper_from_dict(raw)
    except RecordError:
        return
    assert paper.title and paper_from_dict(paper.to_dict()) == paper


def test_control_characters_are_exactly_unicode_category_cc_minus_tab_and_newline():
    import unicodedata

    from papersift.record import CONTROL_CHARS

    control = {chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) == "Cc"} - {"\t", "\n"}
    matched = {chr(code) for code in range(0x110000) if CONTROL_CHARS.fullmatch(chr(code))}
    assert matched == control


def test_to_dict_has_every_field_with_lists(sample_records):
    from dataclasses import asdict

    paper = paper_from_dict(sample_records[3])
    expected = asdict(paper) | {"authors": list(paper.authors), "keywords": list(paper.keywords),
                                "author_ids": list(paper.author_ids), "affiliations": list(paper.affiliations)}
    assert paper.to_dict() == expected and list(paper.to_dict()) == list(expected)


def test_the_ascii_shortcut_folds_titles_and_names_as_the_unicode_path_does(sample_records, title_only_records):
    """normalize_title and names.name_tokens skip NFKD for ASCII text (ingest time, before
    quickstart serves); every title and author name of the fixture corpus, and forced non-ASCII
    copies of them, fold as the full Unicode path folds them."""
    import re
    import unicodedata

    from papersift.names import SUFFIXES, name_tokens

    def unicode_fold(text: str) -> str:
        folded = unicodedata.normalize("NFKD", text).casefold()
        return "".join(ch for ch in folded if not unicodedata.combining(ch))

    def tokens(name: str) -> list[str]:
        found = re.findall(r"[^\W_]+", unicode_fold(name))
        while len(found) > 1 and found[-1] in SUFFIXES:
            found.pop()
        return found

    records = [*sample_records, *title_only_records]
    titles = [record["title"] for record in records] + ["Naïve BAYES: ﬁne-tuning, É-learning", "ΣΔ Modulation"]
    assert sum(title.isascii() for title in titles) > 1000  # the shortcut is taken
    for title in titles:
        assert normalize_title(title) == " ".join(re.findall(r"\w+", unicode_fold(title))), title
    names = [name for record in records for name in record["authors"]] + ["Adam Prügel-Bennett", "J.-P. Vert Jr."]
    assert sum(name.isascii() for name in names) > 1000
    for name in names:
        assert name_tokens(name) == tokens(name), name
