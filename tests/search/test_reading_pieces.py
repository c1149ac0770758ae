"""A Chinese term read in pieces (issue 26, search/crosslingual.py): a piece the composition left
unread takes the glossary's reading, and glossary pieces join into the phrase papers write with
another of a piece's senses when their best senses make none."""

from __future__ import annotations

import pytest
from tests.search.test_reading_order import Entry, FakeGlossary
from tests.search.test_reading_phrases import lexicon_of
from tests.search.test_termlexicon import PAPERS as TERM_PAPERS

from papersift.search import termlexicon
from papersift.search.crosslingual import (
    MAX_SENSE_PHRASES,
    SENSES_PER_PIECE,
    _pieces_as_one_phrase,
    _senses_per_piece,
    read_query,
)
from papersift.search.termlexicon import TermLexicon, TermReading

LONG = "图神经网络过平滑弱监督学习"  # 13 characters: a description, composed whole by the lexicon


def pairs(reading) -> list[tuple[str, str]]:
    return [(term.chinese, term.english) for term in reading.terms]


def test_a_piece_the_walk_left_unread_takes_the_glossary_reading(tmp_path, monkeypatch):
    path = lexicon_of(tmp_path, TERM_PAPERS).path
    # a budget of phrase checks the walk spends on the first pieces, leaving the last one unread
    for budget in range(10, 400, 10):
        monkeypatch.setattr(termlexicon, "MAX_LOOKUPS", budget)
        plain = TermLexicon(path).read(LONG)
        if plain is not None and ("弱监督学习", "") in pairs(plain):
            break
    else:
        pytest.fail("no budget leaves 弱监督学习 unread")
    glossary = FakeGlossary([Entry("弱监督学习", "weakly supervised learning", ("d2l",), 0.9)])
    reading = read_query(LONG, TermLexicon(path), glossary=glossary)
    assert pairs(reading)[:-1] == pairs(plain)[:-1]  # what the walk read stays as it read it
    last = reading.terms[-1]
    assert (last.chinese, last.english, last.source) == ("弱监督学习", "weakly supervised learning", "glossary")
    assert "weakly supervised learning" in reading.english


def test_a_stretch_the_glossary_does_not_know_stays_unread(tmp_path, monkeypatch):
    path = lexicon_of(tmp_path, TERM_PAPERS).path
    monkeypatch.setattr(termlexicon, "MAX_LOOKUPS", 1)  # the walk reads nothing
    glossary = FakeGlossary([Entry("弱监督学习", "weakly supervised learning", ("d2l",), 0.9)])
    reading = read_query(LONG, TermLexicon(path), glossary=glossary)
    assert pairs(reading) == [("图神经网络过平滑", ""), ("弱监督学习", "weakly supervised learning")]


KERNEL_PAPERS = [*[f"A kernel function for graphs, case {n}" for n in range(6)],
                 *[f"A loss function for ranking, row {n}" for n in range(6)]]


def test_a_character_no_phrase_reads_takes_its_glossary_reading_within_a_short_token(tmp_path):
    # 核 has no sense papers use as "kernel" in the dictionary, and one character is not read alone
    # inside a longer term: the composition reads 核函数 as "function" only
    lexicon = lexicon_of(tmp_path, KERNEL_PAPERS)
    assert pairs(read_query("核函数", lexicon)) == [("核", ""), ("函数", "function")]
    glossary = FakeGlossary([Entry("核", "kernel", ("d2l",), 0.75), Entry("函数", "function", ("d2l",), 0.95)])
    reading = read_query("核函数", lexicon, glossary=glossary)
    assert pairs(reading) == [("核函数", "kernel function")]  # then joined: the phrase papers write
    assert not reading.shown_sure  # as sure as its least sure piece (a composition)


def test_a_hyphen_inside_a_token_does_not_keep_its_pieces_apart(tmp_path):
    # the lexicon's pieces leave the hyphen out ("状态动作值"): they are still found in the token
    lexicon = lexicon_of(tmp_path, [*[f"The state-action value function of an MDP, row {n}" for n in range(6)],
                                    *[f"A loss function for ranking, row {n}" for n in range(6)]])
    pieces = [TermReading("状态动作值", "state-action value", confidence=0.5),
              TermReading("函数", "function", confidence=0.95, source="glossary")]
    joined = _pieces_as_one_phrase("状态-动作值函数", pieces, lexicon)
    assert joined is not None and (joined.chinese, joined.english) == ("状态-动作值函数", "state-action value function")
    assert _pieces_as_one_phrase("函数状态-动作值", pieces, lexicon) is None  # not in order: no phrase


SENSE_PAPERS = [*[f"A state sequence of the chain, row {n}" for n in range(6)],
                *[f"The status sequence of the order, row {n}" for n in range(20)],
                *[f"Sequence-to-sequence models translate, row {n}" for n in range(6)],
                *[f"State estimation in control, row {n}" for n in range(6)]]
SENSES = FakeGlossary([Entry("状态", "state", ("d2l",), 1.0), Entry("状态", "status", ("other",), 0.55),
                       Entry("序列", "sequence-to-sequence", ("d2l",), 0.75), Entry("序列", "sequence", ("other",), 0.35)])


def test_glossary_pieces_join_with_another_sense_when_their_best_senses_make_no_phrase(tmp_path):
    # "state sequence-to-sequence" no paper writes; 序列's other entry "sequence" makes "state
    # sequence"; "status sequence" (more papers) takes two pieces' other senses, not one
    lexicon = lexicon_of(tmp_path, SENSE_PAPERS)
    reading = read_query("状态序列", lexicon, glossary=SENSES)
    assert pairs(reading) == [("状态序列", "state sequence")]
    (term,) = reading.terms
    assert term.papers == 6 and term.confidence == 0.75 and not term.shown_sure  # as its least sure piece


def test_the_pieces_best_senses_are_kept_when_papers_write_them_together(tmp_path):
    lexicon = lexicon_of(tmp_path, [*SENSE_PAPERS, *[f"A state sequence-to-sequence parser, row {n}" for n in range(5)]])
    assert pairs(read_query("状态序列", lexicon, glossary=SENSES)) == [("状态序列", "state sequence-to-sequence")]


def test_the_senses_tried_are_bounded():
    assert _senses_per_piece(2) == SENSES_PER_PIECE
    for pieces in range(2, 10):
        width = _senses_per_piece(pieces)
        assert width >= 1 and (width ** pieces <= MAX_SENSE_PHRASES or width == 1)


MARGINAL_PAPERS = [*[f"The marginal likelihood of the model, row {n}" for n in range(8)],
                   *[f"A likelihood function in closed form, row {n}" for n in range(5)],
                   *[f"Graph edges and a loss function, row {n}" for n in range(30)]]
MARGINAL = FakeGlossary([Entry("边缘", "edges", ("d2l",), 0.95), Entry("边缘", "marginal", ("other",), 0.55),
                         Entry("似然", "likelihood", ("d2l",), 0.75), Entry("函数", "function", ("d2l",), 0.95)])


def test_pieces_no_one_phrase_joins_are_joined_into_the_fewest_phrases_papers_use(tmp_path):
    # "edges likelihood function" no paper writes, nor "marginal likelihood function"; of two
    # phrases, "marginal likelihood" + "function" (more papers) rather than "edges" + "likelihood function"
    lexicon = lexicon_of(tmp_path, MARGINAL_PAPERS)
    reading = read_query("边缘似然函数", lexicon, glossary=MARGINAL)
    assert pairs(reading) == [("边缘似然", "marginal likelihood"), ("函数", "function")]
    assert reading.english == "marginal likelihood function"
    assert reading.terms[0].confidence == 0.75  # as sure as its least sure piece
