"""The order a Chinese query is read in (search/crosslingual.py read_query): glossary, then a
name, then composition; each reading with a confidence, and a guess never shown as sure."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tests.search.test_termlexicon import PAPERS

from papersift.index.cedict import dictionary_path
from papersift.index.termlexicon import build_lexicon, dictionary
from papersift.search.crosslingual import glossary_pieces, read_query
from papersift.search.termlexicon import TermLexicon


@dataclass(frozen=True)
class Entry:
    zh: str
    en: str
    sources: tuple[str, ...]
    confidence: float


class FakeGlossary:
    """The glossary's interface (search/glossary.py lookup_zh, zh_terms, best_confidence, lookup_en) over a few entries."""

    def __init__(self, entries: list[Entry]):
        self.entries = entries

    def lookup_zh(self, term: str) -> list[Entry]:
        return sorted((e for e in self.entries if e.zh == term), key=lambda e: -e.confidence)

    def zh_terms(self) -> frozenset[str]:
        return frozenset(e.zh for e in self.entries)

    def best_confidence(self, term: str) -> float:
        return max((e.confidence for e in self.entries if e.zh == term), default=0.0)

    def lookup_en(self, phrase: str) -> list[Entry]:
        return sorted((e for e in self.entries if e.en.lower() == phrase.lower()), key=lambda e: -e.confidence)


class FakeNames:
    def __init__(self, known: dict[str, tuple[str, int]]):
        self.known = known
        self.asked: list[str] = []

    def read(self, name: str) -> tuple[str, int] | None:
        self.asked.append(name)
        return self.known.get(name)


GLOSSARY = FakeGlossary([
    Entry("反向传播", "backpropagation", ("d2l",), 0.95),
    Entry("图神经网络", "graph neural networks", ("d2l",), 0.9),
    Entry("神经网络", "neural network", ("d2l",), 0.9),
    Entry("监督学习", "supervised learning", ("d2l",), 1.0),
    Entry("监督学习", "supervised learn", ("other",), 0.2),
])


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> TermLexicon:
    data_dir = tmp_path_factory.mktemp("reading-order")
    papers = [*PAPERS, *[f"Tensor decomposition of weights, case {n}" for n in range(3)]]
    build_lexicon(data_dir, papers, dictionary(str(dictionary_path())), len(papers), 1)
    return TermLexicon.open(data_dir)


def test_a_glossary_term_is_the_reading_and_shown_as_sure(lexicon):
    reading = read_query("反向传播", lexicon, glossary=GLOSSARY)
    (term,) = reading.terms
    assert (term.english, term.source, term.confidence) == ("backpropagation", "glossary", 0.95)
    assert term.shown_sure and reading.shown_sure and reading.english == "backpropagation"


def test_without_the_glossary_a_composition_is_a_guess_not_the_reading(lexicon):
    # composition was the English term for 63 of 92 "sure" compositions on zhterms half A
    reading = read_query("弱监督学习", lexicon)
    (term,) = reading.terms
    assert term.english == "weakly supervised learning" and term.source == "composition"
    assert term.confidence > 0 and not term.shown_sure and not reading.shown_sure


def test_the_longest_glossary_term_wins_and_the_rest_is_composed(lexicon):
    pieces = glossary_pieces("图神经网络过平滑", GLOSSARY, lexicon)
    assert [text for text, _ in pieces] == ["图神经网络", "过平滑"]  # not 神经网络 inside it
    reading = read_query("图神经网络过平滑", lexicon, glossary=GLOSSARY)
    assert [(t.english, t.source) for t in reading.terms] == [("graph neural networks", "glossary"),
                                                              ("over-smoothing", "composition")]
    assert reading.english == "graph neural networks over-smoothing"


def test_a_whole_composition_that_agrees_with_the_glossary_is_kept(lexicon):
    # the glossary knows 监督学习; 弱 alone would read "weak": the whole token composes
    # "weakly supervised learning", which holds "supervised learning", so it is the (sure) reading
    reading = read_query("弱监督学习", lexicon, glossary=GLOSSARY)
    (term,) = reading.terms
    assert (term.english, term.source) == ("weakly supervised learning", "glossary+composition")
    assert term.confidence == pytest.approx(1.0 * 4 / 5) and term.shown_sure  # 监督学习: 4 of 5 characters


def test_other_glossary_entries_are_offered_only_as_phrases_papers_use(lexicon):
    # "supervised learn" is "supervised learning" in other words: no alternative
    (term,) = read_query("监督学习", lexicon, glossary=GLOSSARY).terms
    assert term.english == "supervised learning" and term.alternatives == ()


def test_latin_words_beside_a_glossary_term_stay_as_typed(lexicon):
    reading = read_query("GNN 反向传播", lexicon, glossary=GLOSSARY)
    assert reading.english == "GNN backpropagation"


def test_traditional_script_reads_like_simplified(lexicon):
    assert read_query("弱監督學習", lexicon).english == "weakly supervised learning"
    assert read_query("反向傳播", lexicon, glossary=GLOSSARY).english == "backpropagation"
    # Taiwan's 網路 is 网络 (network): the surer of the two forms is kept
    taiwan = read_query("圖神經網路", lexicon, glossary=GLOSSARY)
    assert taiwan.english == "graph neural networks" and taiwan.shown_sure


def test_full_width_letters_read_as_half_width(lexicon):
    assert read_query("Ｓｏｆｔｍａｘ函数", lexicon).english == "softmax function"


def test_a_name_reads_as_an_author_not_as_words(lexicon):
    names = FakeNames({"何恺明": ("Kaiming He", 10)})
    reading = read_query("何恺明", lexicon, names=names)
    (term,) = reading.terms
    assert (term.english, term.source) == ("Kaiming He", "name") and term.shown_sure
    assert reading.authors == ("Kaiming He",) and reading.english == ""


def test_a_dictionary_word_is_never_asked_as_a_name(lexicon):
    # 张量 (tensor, a sense papers use) would spell "Liang Zhang", an author of many papers
    names = FakeNames({"张量": ("Liang Zhang", 9)})
    reading = read_query("张量", lexicon, names=names)
    assert names.asked == [] and reading.authors == ()


def test_a_glossary_term_is_never_asked_as_a_name(lexicon):
    names = FakeNames({"反向传播": ("Nobody", 5)})
    read_query("反向传播", lexicon, glossary=GLOSSARY, names=names)
    assert names.asked == []


def test_a_chinese_name_finds_the_authors_papers_through_the_service(service):
    # the sample has 7 papers by Jun Zhu (朱军); the name is searched as an author filter
    from papersift.search.types import SearchRequest

    response = service.search(SearchRequest(query="朱军", mode="keyword", size=20))
    (term,) = response.reading.terms
    assert (term.chinese, term.english, term.source) == ("朱军", "Jun Zhu", "name") and term.shown_sure
    assert response.total == 7
    assert all("Jun Zhu" in paper.authors for paper in (hit.paper for hit in response.hits))
    # the notice names what was searched: the author (it said "searched in English as:  (7 papers)")
    assert [notice for notice in response.notices if notice.code == "carried_over"] == [
        'no paper contains these Chinese words; searched in English as: author:"Jun Zhu" (7 papers)']


def test_a_chinese_name_beside_a_term_is_named_in_the_notice_as_the_filter_it_is(service):
    # 朱军 强化学习: the notice said "searched in English as: reinforcement learning", the author
    # filter only in the reading line below it
    from papersift.search.types import SearchRequest

    response = service.search(SearchRequest(query="朱军 强化学习", mode="keyword", size=20))
    assert response.reading.authors == ("Jun Zhu",) and response.reading.english
    assert 0 < response.total < 7 and all("Jun Zhu" in hit.paper.authors for hit in response.hits)
    (notice,) = [notice for notice in response.notices if notice.code in ("carried_over", "carried_over_also")]
    assert f'searched in English as: {response.reading.english} author:"Jun Zhu"' in notice


def test_a_traditional_script_query_reads_through_the_service(service):
    from papersift.search.types import SearchRequest

    simplified = service.search(SearchRequest(query="强化学习", mode="keyword", size=10))
    traditional = service.search(SearchRequest(query="強化學習", mode="keyword", size=10))
    assert traditional.reading.english == simplified.reading.english != ""
    assert [hit.paper.id for hit in traditional.hits] == [hit.paper.id for hit in simplified.hits]


def test_a_token_the_composition_reads_whole_is_a_term_not_a_name(lexicon):
    # 过平滑 composes "over-smoothing"; 过 is also a surname (Guo)
    names = FakeNames({"过平滑": ("Pinghua Guo", 3)})
    reading = read_query("过平滑", lexicon, names=names)
    assert reading.authors == () and reading.english == "over-smoothing"


def test_a_whole_composition_agrees_only_with_the_glossary_terms_in_place(lexicon):
    # 图神经网络: the glossary's 神经网络 ends the token and "neural networks" ends "graph neural networks"
    glossary = FakeGlossary([Entry("神经网络", "neural network", ("d2l",), 0.9)])
    reading = read_query("图神经网络", lexicon, glossary=glossary)
    assert reading.english == "graph neural networks" and reading.terms[0].source == "glossary+composition"


def test_a_glossary_term_that_starts_the_token_must_start_the_phrase():
    # 深度学习法: a composition that swapped its halves ("method deep learning") does not hold the
    # glossary's 深度学习 "deep learning" where the token has it, at the start
    from papersift.search.crosslingual import _agreeing_composition
    from papersift.search.termlexicon import QueryReading, TermReading

    class Composes:
        def __init__(self, english: str):
            self.english = english

        def read(self, token: str) -> QueryReading:
            return QueryReading(token, self.english, (TermReading(token, self.english, confidence=0.5),))

    deep = TermReading("深度学习", "deep learning", confidence=0.9, source="glossary")
    pieces = [("深度学习", deep), ("法", None)]
    assert _agreeing_composition("深度学习法", pieces, Composes("method deep learning")) is None
    agreed = _agreeing_composition("深度学习法", pieces, Composes("deep learning method"))
    assert agreed is not None and agreed.english == "deep learning method"
    assert agreed.confidence == pytest.approx(0.9 * 4 / 5)  # the share of the token the glossary knew
    # spelled without spaces or hyphens alike: the glossary's "nonconvex" is in "non-convex learning"
    nonconvex = TermReading("非凸", "nonconvex", confidence=0.8, source="glossary")
    agreed = _agreeing_composition("非凸学习", [("非凸", nonconvex), ("学习", None)], Composes("non-convex learning"))
    assert agreed is not None and agreed.english == "non-convex learning"
    # a glossary term of half the token makes a guess (集成学习: 学习 "learning" is in "integrated
    # learning", the composition's wrong reading of ensemble learning)
    learning = TermReading("学习", "learning", confidence=0.9, source="glossary")
    guess = _agreeing_composition("集成学习", [("集成", None), ("学习", learning)], Composes("integrated learning"))
    assert guess is not None and guess.confidence == pytest.approx(0.45) and not guess.shown_sure


def test_a_character_the_glossary_leaves_alone_is_not_read_on_its_own(lexicon):
    # the glossary knows 图神经网络, and no phrase of the lexicon reads 弱图神经网络 whole: 弱 alone
    # must not be read (its senses include "good"); the token is read as without the glossary
    alone = read_query("弱图神经网络", lexicon)
    reading = read_query("弱图神经网络", lexicon, glossary=GLOSSARY)
    assert [t.english for t in reading.terms if t.chinese == "弱"] == [""]  # left unread, as composition leaves it
    assert [(t.chinese, t.english) for t in reading.terms] == [(t.chinese, t.english) for t in alone.terms]


def test_of_about_as_sure_glossary_entries_the_one_papers_use_most_is_read(lexicon):
    # "neural net" is surer by 0.05 but no paper here writes it; "neural networks" is in 35
    glossary = FakeGlossary([Entry("神经网络", "neural net", ("a",), 0.8), Entry("神经网络", "neural network", ("b",), 0.75),
                             Entry("神经网络", "internet", ("c",), 0.6)])
    (term,) = read_query("神经网络", lexicon, glossary=glossary).terms
    assert (term.english, term.confidence) == ("neural networks", 0.75)  # spelled as papers spell it
    # an entry further below is not preferred for its papers ("internet", 3 papers, 0.2 less sure)
    glossary = FakeGlossary([Entry("神经网络", "neural net", ("a",), 0.8), Entry("神经网络", "internet", ("c",), 0.6)])
    assert read_query("神经网络", lexicon, glossary=glossary).terms[0].english == "neural net"


def test_a_run_on_description_is_composed_whole_with_the_glossary_terms_beside(lexicon):
    # cut at its glossary terms, a description lost the phrases across them (known-item zh dev)
    text = "我们研究图神经网络中的过平滑问题和弱监督学习"
    plain = read_query(text, lexicon)
    reading = read_query(text, lexicon, glossary=GLOSSARY)
    assert [(t.chinese, t.english) for t in reading.terms] == [(t.chinese, t.english) for t in plain.terms]
    assert reading.extra.endswith("graph neural networks supervised learning")


def test_a_shorter_entry_about_as_sure_is_not_the_reading_for_more_papers_using_it(lexicon):
    # 激活函数 has "activation function" (1.0) and "activation" (0.95) in the glossary; "activation"
    # is in more papers for being more general: an entry of some of the surest's words is not preferred
    glossary = FakeGlossary([Entry("图神经网络", "graph neural networks", ("d2l",), 1.0),
                             Entry("图神经网络", "neural networks", ("other",), 0.95)])
    general, specific = (lexicon.phrase(key) for key in ("neural network", "graph neural network"))
    assert general is not None and specific is not None and general[1] > specific[1]
    (term,) = read_query("图神经网络", lexicon, glossary=glossary).terms
    assert term.english == "graph neural networks" and term.shown_sure

