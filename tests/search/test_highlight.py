"""Highlights: everything escaped, only words that match the query marked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from papersift.index.analyzers import terms
from papersift.search.highlight import MARK_CLOSE, MARK_OPEN, Highlighter, mark_spans


def marker(query: str) -> Highlighter:
    return Highlighter(frozenset(terms(query)))


def test_hostile_markup_is_escaped():
    title = '<img src=x onerror=alert(1)> Graph <script>alert("x")</script> networks & more'
    html = marker("graph networks")(title)
    assert "<img" not in html and "<script" not in html
    assert html == ('&lt;img src=x onerror=alert(1)&gt; <mark>Graph</mark> &lt;script&gt;alert(&quot;x&quot;)'
                    '&lt;/script&gt; <mark>networks</mark> &amp; more')


def test_stemmed_forms_and_case_are_marked_but_not_partial_words():
    html = marker("network study")("Networks studied; hypernetwork studying NETWORK studies networking")
    assert html.count(MARK_OPEN) == 6
    assert "hyper<mark>" not in html and "hypernetwork" in html


def test_stop_words_and_other_words_are_not_marked():
    assert MARK_OPEN not in marker("the of and")("The state of the art and beyond")


def test_chinese_words_are_marked_through_jieba():
    html = marker("神经网络")("基于图神经网络的方法")
    assert f"{MARK_OPEN}神经网络{MARK_CLOSE}" in html


def test_sentinel_characters_in_text_cannot_forge_marks():
    assert mark_spans("a\x00b\x01c <", [(0, 1)]) == f"{MARK_OPEN}a{MARK_CLOSE}bc &lt;"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["graph", "learning", "x", "model <b>"]))
def test_output_is_always_safe_and_loses_no_text(text, query):
    html = marker(query)(text)
    bare = html.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
    assert "<" not in bare and ">" not in bare
    import html as html_module

    assert html_module.unescape(bare) == text.replace("\x00", "").replace("\x01", "")


def test_a_page_at_once_marks_each_text_as_alone():
    texts = ["Graph networks", None, "", 'A <b>graph</b> & "networks"', "Réseaux: graphs — “networks”",
             "Networking; hypergraph graphs", "图 graph"]
    highlight = marker("graph networks")
    assert highlight.mark_many(texts) == [highlight(text) for text in texts]
    assert highlight.mark_many(texts)[1] == "" and highlight.mark_many([]) == []


def test_entity_names_are_not_marked_but_the_same_words_are():
    html = marker("amp lt quot x27")("amp & lt < quot \" x27 '")
    assert html == ("<mark>amp</mark> &amp; <mark>lt</mark> &lt; <mark>quot</mark> &quot; "
                    "<mark>x27</mark> &#x27;")


def test_a_word_is_marked_once_when_one_query_term_starts_another():
    html = marker("learn learners")("Learners learning; learned learner")
    assert html == ("<mark>Learners</mark> <mark>learning</mark>; <mark>learned</mark> <mark>learner</mark>")


def test_prefixes_that_extend_another_need_no_scan_of_their_own():
    from papersift.search.highlight import _candidate_prefixes

    assert _candidate_prefixes(frozenset({"learn", "learner", "lead", "studi", "graph"})) == ("graph", "lead", "learn", "stud")


def test_a_prefix_is_scanned_from_its_rarest_letter():
    """re stops at each occurrence of a pattern's first letter: "network" is looked for from its
    "k" (the letters before it checked behind), "learn" from its "l"; the words found are the same."""
    from papersift.search.highlight import _word_start_pattern

    pattern, head = _word_start_pattern("network")
    assert head == "networ" and pattern.pattern.startswith("k(?<=network)")
    assert _word_start_pattern("learn")[1] == ""
    html = marker("networks graphs")("Networks; subnetwork GRAPHS graphical_network &amp;graph graph's")
    assert html == ("<mark>Networks</mark>; subnetwork <mark>GRAPHS</mark> graphical_<mark>network</mark> "
                    "&amp;amp;<mark>graph</mark> <mark>graph</mark>&#x27;s")


def _first_letter_marks(query_terms: frozenset[str], text: str) -> str:
    """The marks as found before anchoring: one scan per prefix from its first letter."""
    import re
    from html import escape

    from papersift.index.analyzers import ENGLISH
    from papersift.search.highlight import _candidate_prefixes, _lower_in_place, _mark_escaped, _word_terms

    escaped = escape(text, quote=True)
    lowered = _lower_in_place(escaped)
    spans = []
    for prefix in _candidate_prefixes(query_terms):
        chars = "." * len(prefix)
        pattern = re.compile(f"{re.escape(prefix)}(?<![^\\W_]{chars})(?<!&{chars})(?<!&#{chars})[^\\W_]*")
        spans += [match.span() for match in pattern.finditer(lowered)
                  if not query_terms.isdisjoint(_word_terms(match[0], ENGLISH))]
    return _mark_escaped(escaped, sorted(spans))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["network", "networks", "Networking", "subnetwork", "k", "netk", "work", "graph",
                                 "graphs", "GRAPHICAL", "ph", "transformers", "form", "&", "&amp;", "#", "x27", "'",
                                 "_", "-", "é", "Réseau", "neural", "newt", "3d", "model", " ", " ", " "]),
                max_size=30),
       st.sampled_from(["network graph", "transformer neural", "newt neural 3d", "réseau model", "x27 amp"]))
def test_anchored_scans_mark_what_first_letter_scans_mark(words, query):
    text = "".join(words)
    highlight = marker(query)
    assert highlight(text) == _first_letter_marks(highlight.query_terms, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab &<>\"'é#;x\x00"), max_size=60))
def test_escape_html_is_html_escape(text):
    import html as html_module

    from papersift.search.highlight import escape_html

    assert escape_html(text) == html_module.escape(text, quote=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("ΑΣσςΒ\u0345'.a Σ\u00adİK"), max_size=8), min_size=1, max_size=4))
def test_joined_texts_lower_as_they_did_line_by_line(texts):
    """mark_many's joined texts are lowered as one string, as they were line by line (MARK_START
    between them is neither cased nor case-ignorable: a final sigma reads a text's end as its end;
    a longer lowercase anywhere sends both to the character-by-character path)."""
    from papersift.search.highlight import MARK_START, _lower_in_place

    joined = MARK_START.join(texts)
    by_line = MARK_START.join([line.lower() for line in joined.split(MARK_START)])
    if len(by_line) != len(joined):
        by_line = "".join(char.lower()[0] for char in joined)
    assert _lower_in_place(joined) == by_line
