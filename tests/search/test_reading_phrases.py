"""A Chinese term read as a phrase papers write (issue 26, reading without a glossary entry for
the whole term): a sense's other word forms, and a token the glossary cut into words whose
words together no paper writes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.search.test_phrasebridge import fake_encoder
from tests.search.test_reading_order import Entry, FakeGlossary

from papersift.index.cedict import dictionary_path
from papersift.index.phrasevectors import build_phrase_vectors
from papersift.index.termlexicon import build_lexicon, dictionary
from papersift.search import crosslingual
from papersift.search.crosslingual import ALTERNATIVE_WEIGHT, also_searched, phrase_query, read_query
from papersift.search.hybrid import HybridRetriever
from papersift.search.phrasebridge import PhraseBridge, holds_in_place
from papersift.search.query import AnyOf, ParsedQuery, Words
from papersift.search.termlexicon import QueryReading, TermLexicon, TermReading, word_forms

PAPERS = [
    # 贝叶斯 is "Bayes" in CC-CEDICT; papers write the adjective with 优化 (optimize)
    *[f"Bayesian optimization of hyperparameters, study {n}" for n in range(12)],
    *[f"A Bayes optimal classifier under label noise, note {n}" for n in range(5)],
    # 线性 + 规划 (plan, program): papers say "linear programming", none "linear planning"
    *[f"Linear programming relaxations for scheduling, case {n}" for n in range(8)],
    *[f"Motion planning for robots, part {n}" for n in range(4)],
    # 对抗 composes "resistance" (to resist); papers say "adversarial networks"
    *[f"Antibiotic resistance in bacteria, item {n}" for n in range(4)],
    *[f"Generative adversarial networks for images, figure {n}" for n in range(10)],
    *[f"Adversarial attacks on classifiers, table {n}" for n in range(10)],
]
# What a multilingual encoder would say: each Chinese term sits on one English phrase.
TWINS = {"对抗网络": "adversarial networks", "对抗攻击网络": "adversarial attacks"}


fake_encode = fake_encoder(TWINS)


def lexicon_of(folder: Path, papers: list[str]) -> TermLexicon:
    build_lexicon(folder, papers, dictionary(str(dictionary_path())), len(papers), 1)
    lexicon = TermLexicon.open(folder)
    assert lexicon is not None
    return lexicon


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("reading-phrases")
    lexicon_of(folder, PAPERS)
    build_phrase_vectors(folder, fake_encode, min_papers=2)
    return folder


@pytest.fixture(scope="module")
def lexicon(data_dir) -> TermLexicon:
    found = TermLexicon.open(data_dir)
    assert found is not None
    return found


@pytest.fixture()
def bridge(data_dir) -> PhraseBridge:
    found = PhraseBridge.open(data_dir, fake_encode)
    assert found is not None
    return found


GLOSSARY = FakeGlossary([
    Entry("线性", "linear", ("d2l",), 0.9),
    Entry("规划", "planning", ("d2l",), 0.9),
    Entry("网络", "networks", ("d2l",), 0.9),
])


def test_word_forms_are_adjectives_of_nouns_and_names_and_nouns_of_participles():
    assert "bayesian" in word_forms("bayes")
    assert "categorical" in word_forms("categories")  # the phrase table's spelling is often a plural
    assert "reduction" in word_forms("reduced")
    assert "gaussian" in word_forms("gauss")
    assert word_forms("k-means") == [] and word_forms("of") == []


def test_a_sense_takes_the_word_form_papers_use_with_the_rest_of_the_term(lexicon):
    # the stemmer keeps "bayes" and "bayesian" apart: the composition tries both, papers choose
    (term,) = lexicon.read("贝叶斯优化").terms
    assert term.english == "bayesian optimization" and term.papers == 12 and term.sure
    assert "bayes optimal" in term.alternatives


def test_glossary_words_no_paper_writes_together_give_way_to_another_sense_of_a_piece(lexicon):
    # "linear planning" no paper writes; 规划's next sense ("programming", from its composition)
    # makes the phrase papers write: read as the pieces are, as sure as the least sure one
    reading = read_query("线性规划", lexicon, glossary=GLOSSARY)
    (term,) = reading.terms
    assert (term.english, term.source, term.confidence) == ("linear programming", "glossary", 0.9)


def test_glossary_words_no_paper_writes_together_give_way_to_the_whole_composition(lexicon, monkeypatch):
    monkeypatch.setattr(crosslingual, "SENSES_PER_PIECE", 1)  # each piece's best sense only
    reading = read_query("线性规划", lexicon, glossary=GLOSSARY)
    (term,) = reading.terms
    assert term.english == "linear programming" and term.source == "composition"
    assert "linear planning" in term.alternatives
    assert not reading.shown_sure  # a composition is a guess, as before


def test_glossary_words_papers_write_together_are_read_as_that_one_phrase(tmp_path):
    lexicon = lexicon_of(tmp_path, [*PAPERS, *[f"Linear planning of budgets, row {n}" for n in range(5)]])
    reading = read_query("线性规划", lexicon, glossary=GLOSSARY)
    assert [(term.english, term.source) for term in reading.terms] == [("linear planning", "glossary")]
    assert reading.shown_sure  # as sure as its glossary pieces
    searched = phrase_query(ParsedQuery(), reading)
    assert searched is not None and searched.required == (AnyOf((Words("linear planning", phrase=True),)),)


def test_a_latin_word_and_a_glossary_word_papers_write_together_are_read_as_one_phrase(tmp_path):
    # 函数 (function) is a sure glossary word, a cut point: "Softmax函数" is the phrase papers
    # write, searched as it, not "Softmax" beside "function"
    lexicon = lexicon_of(tmp_path, [*PAPERS, *[f"The softmax function in attention, row {n}" for n in range(5)],
                                    *[f"A loss function for ranking, row {n}" for n in range(5)]])
    glossary = FakeGlossary([Entry("函数", "function", ("d2l",), 0.95)])
    reading = read_query("Softmax函数", lexicon, glossary=glossary)
    assert [(term.chinese, term.english) for term in reading.terms] == [("Softmax函数", "softmax function")]
    assert reading.english == "softmax function" and reading.shown_sure
    searched = phrase_query(ParsedQuery(), reading)
    assert searched is not None and searched.required == (AnyOf((Words("softmax function", phrase=True),)),)
    # a Latin word and a glossary word no paper writes together stay apart, as typed
    apart = read_query("Hopfield函数", lexicon, glossary=glossary)
    assert apart.english == "Hopfield function" and [term.english for term in apart.terms] == ["function"]


def test_a_token_cut_at_a_glossary_word_reads_as_the_nearest_phrase_holding_that_word(lexicon, bridge):
    # 对抗 composes "resistance"; "resistance networks" no paper writes, no composition reads the whole
    assert read_query("对抗网络", lexicon, glossary=GLOSSARY).english == "resistance networks"
    reading = read_query("对抗网络", lexicon, phrases=bridge, glossary=GLOSSARY)
    (term,) = reading.terms
    assert (term.english, term.source) == ("adversarial networks", "neighbours")
    assert "resistance networks" in term.alternatives and not reading.shown_sure


def test_a_nearest_phrase_that_drops_a_glossary_word_is_not_the_reading(lexicon, bridge):
    # the nearest phrase of this token is "adversarial attacks", which does not end in "networks"
    reading = read_query("对抗攻击网络", lexicon, phrases=bridge, glossary=GLOSSARY)
    assert "adversarial attacks" not in reading.english
    assert reading.terms[-1].english == "networks"


def test_a_phrase_holds_each_part_in_place():
    parts = [(False, True, ("networks",))]
    assert holds_in_place("adversarial networks", parts)
    assert not holds_in_place("networks of neurons", parts)  # a part that ends the term ends the phrase
    assert holds_in_place("non-convex learning", [(True, False, ("nonconvex",))])
    assert holds_in_place("real-time recurrent learning", [(False, False, ("loop", "recurrent"))])
    assert not holds_in_place("adversarial attacks", parts)


def _reading(text: str, *terms: TermReading, english: str | None = None, extra: str = "") -> QueryReading:
    return QueryReading(text, english if english is not None else " ".join(t.english for t in terms if t.source != "name"),
                        terms, extra)


def test_a_term_is_searched_as_its_phrase_and_a_guess_as_it_or_its_alternatives():
    sure = TermReading("反向传播", "backpropagation", ("back propagation",), 300, confidence=0.95, source="glossary")
    guess = TermReading("贝叶斯优化", "bayesian optimization", ("bayes optimal", "optimal bayesian"), 12,
                        confidence=0.5, source="composition")
    query = phrase_query(ParsedQuery(excluded=(Words("survey"),)), _reading("反向传播 贝叶斯优化", sure, guess))
    assert query is not None and query.match_all and query.excluded == (Words("survey"),)
    assert query.required == (
        AnyOf((Words("backpropagation", phrase=True),)),
        AnyOf((Words("bayesian optimization", phrase=True),
               Words("bayes optimal", phrase=True, weight=ALTERNATIVE_WEIGHT),
               Words("optimal bayesian", phrase=True, weight=ALTERNATIVE_WEIGHT))),
    )


def test_what_a_phrase_query_searches_besides_the_readings_is_each_other_phrase_once():
    sure = TermReading("反向传播", "backpropagation", ("back propagation",), 300, confidence=0.95, source="glossary")
    guess = TermReading("贝叶斯优化", "bayesian optimization", ("bayes optimal", "optimal bayesian"), 12,
                        confidence=0.5, source="composition")
    query = phrase_query(ParsedQuery(excluded=(Words("survey"),)), _reading("反向传播 贝叶斯优化", sure, guess))
    assert query is not None and also_searched(query) == ["bayes optimal", "optimal bayesian"]  # a sure term: alone
    assert also_searched(ParsedQuery((AnyOf((Words("a", phrase=True), Words("b", phrase=True))),
                                      AnyOf((Words("c", phrase=True), Words("b", phrase=True)))))) == ["b"]


def test_a_description_or_latin_words_beside_the_terms_are_not_searched_as_phrases():
    term = TermReading("网络", "networks", (), 9, confidence=0.9, source="glossary")
    assert phrase_query(ParsedQuery(), _reading("Hopfield网络", term, english="Hopfield networks")) is None
    assert phrase_query(ParsedQuery(), _reading("网络", term, extra="network net")) is None
    unread = TermReading("啊", "", (), 0)
    assert phrase_query(ParsedQuery(), _reading("啊", unread)) is None


def test_a_named_person_filters_and_the_terms_are_phrases():
    name = TermReading("何恺明", "Kaiming He", (), 20, confidence=0.9, source="name")
    term = TermReading("残差网络", "residual networks", (), 50, confidence=0.9, source="glossary")
    query = phrase_query(ParsedQuery(), _reading("何恺明 残差网络", name, term))
    assert query is not None and query.filters.authors == ("Kaiming He",)
    assert query.required == (AnyOf((Words("residual networks", phrase=True),)),)


class _Hybrid:
    """What HybridRetriever.translated_ranking asks of itself: the reading and a keyword ranking."""

    # no phrase table, phrases papers write often (no stop-word spelling), no papers per term
    # counted (a backend that cannot): the phrases as read
    keyword = SimpleNamespace(term_lexicon=None, phrase_papers=lambda text: 1_000, term_doc_freq=None)

    def __init__(self, reading: QueryReading, found: dict[bool, list[tuple[str, float]]]):
        self.reading = reading
        self.found = found  # phrase query? -> ranking
        self.asked: list[ParsedQuery] = []

    def reading_for(self, text: str) -> QueryReading:
        return self.reading

    def lexical_ranking(self, query: ParsedQuery, k: int, candidate_ids=None) -> list[tuple[str, float]]:
        self.asked.append(query)
        return self.found[any(isinstance(node, AnyOf) for node in query.required)]


def test_hybrid_ranks_the_translated_list_by_the_terms_phrases_and_falls_back_to_their_words():
    term = TermReading("贝叶斯优化", "bayesian optimization", ("bayes optimal",), 12, confidence=0.5)
    reading = _reading("贝叶斯优化", term)
    side = _Hybrid(reading, {True: [("p1", 2.0)], False: [("p2", 1.0)]})
    assert HybridRetriever.translated_ranking(side, ParsedQuery((Words("贝叶斯优化"),)), 10) == [("p1", 2.0)]  # type: ignore[arg-type]
    assert side.asked[0].required == (AnyOf((Words("bayesian optimization", phrase=True),
                                             Words("bayes optimal", phrase=True, weight=ALTERNATIVE_WEIGHT))),)
    side = _Hybrid(reading, {True: [], False: [("p2", 1.0)]})  # no paper has the phrases
    assert HybridRetriever.translated_ranking(side, ParsedQuery((Words("贝叶斯优化"),)), 10) == [("p2", 1.0)]  # type: ignore[arg-type]


def test_a_guess_alternative_weighs_less_than_the_reading_even_when_rarer():
    # kept whatever its rarity, but what it adds to a paper's score is scaled down: ranked by BM25
    # at full weight, "bayes optimal" papers would come before "bayesian optimization" ones
    guess = TermReading("贝叶斯优化", "bayesian optimization", ("bayes optimal",), 12, confidence=0.5)
    query = phrase_query(ParsedQuery(), _reading("贝叶斯优化", guess))
    assert 0 < ALTERNATIVE_WEIGHT < 1
    assert query is not None and query.required == (AnyOf((
        Words("bayesian optimization", phrase=True),
        Words("bayes optimal", phrase=True, weight=ALTERNATIVE_WEIGHT))),)
