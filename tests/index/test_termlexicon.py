"""The term lexicon's build: corpus phrases keyed by analyzed words, dictionary senses matched to them."""

from __future__ import annotations

from tests.index.phrase_counting import count_phrases

from papersift.index.termlexicon import (
    SECONDARY,
    build_lexicon,
    dictionary_senses,
    is_stale,
    lexicon_path,
    sense_keys,
)


def test_phrases_are_keyed_by_their_analyzed_words_and_spelled_as_papers_mostly_do():
    phrases = count_phrases(["Weakly supervised learning works.", "We study weakly supervised learning of graphs.",
                             "Weakly-supervised learning, again."], min_papers=2)
    assert phrases["weak supervis learn"] == ("weakly supervised learning", 3)  # stems: weakly/weak, supervised/supervise
    assert "learn graph" not in phrases  # in one paper only


def test_a_phrase_spelling_without_words_between_its_words_is_preferred():
    texts = ["networks of graphs are here", "networks of graphs again", "graph networks once", "we use networks of graphs"]
    spelling, papers = count_phrases(texts, min_papers=2)["network graph"]
    assert (spelling, papers) == ("networks of graphs", 3)  # "of" is no index word, so it is kept between them
    assert count_phrases(["graph networks", "graph networks", "networks of graphs x"], min_papers=1)["graph network"][0] == "graph networks"


def test_clauses_break_phrases():
    assert "model data" not in count_phrases(["a model. Data here", "the model; data there"], min_papers=2)


def test_dictionary_notes_with_commas_do_not_cut_a_sense():
    # The note holds commas: splitting before removing it lost "network" (网络 read as "internet")
    senses = dictionary_senses(["網絡 网络 [wang3 luo4] /network (computing, telecommunications, transport etc)/\n"])
    assert senses["网络"] == ["network"]


def test_pointers_and_surnames_are_no_senses():
    senses = dictionary_senses(["過 过 [Guo1] /surname Guo/\n", "过 过 [guo4] /to cross/to go over/too-/\n"])
    assert senses["过"] == ["cross", "go over", "too-"]


def test_a_character_takes_a_sense_its_compounds_show():
    # 图论 is "graph theory" and 论 "theory": 图 can be "graph" (CC-CEDICT's 图 says diagram, picture ...)
    phrases = dict.fromkeys(("graph", "theori", "diagram", "graph theori"), ("x", 5))
    keys = sense_keys({"图论": ("graph theori",), "论": ("theori",), "图": ("diagram",)}, phrases)
    assert keys["图"] == ["diagram", SECONDARY + "graph"]  # the dictionary's own sense first; the induced one less sure


def test_senses_papers_never_use_are_dropped():
    keys = sense_keys({"评论家": ("critic", "review")}, {"critic": ("critic", 3)})
    assert keys == {"评论家": ["critic"]}


def test_the_lexicon_is_published_whole_and_knows_what_it_was_built_from(tmp_path):
    stats = build_lexicon(tmp_path, ["graph theory", "graph theory again"], {"图论": ("graph theori",)}, 2, 7)
    assert stats.path == lexicon_path(tmp_path) and stats.phrases > 0 and stats.headwords == 1
    assert not is_stale(tmp_path, 2, 7)
    assert is_stale(tmp_path, 3, 7) and is_stale(tmp_path, 2, 8)  # papers changed since
    assert [path.name for path in tmp_path.iterdir()] == [lexicon_path(tmp_path).name]  # no staging file left


def test_a_missing_or_broken_lexicon_is_stale(tmp_path):
    assert is_stale(tmp_path, 0, 0)
    lexicon_path(tmp_path).write_bytes(b"not a database")
    assert is_stale(tmp_path, 0, 0)
