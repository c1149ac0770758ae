"""A reading's words in every compound spelling papers use (issue 26): "hyper-parameter
optimization" also as "hyperparameter optimization", "multilayer perceptrons" also as
"multi-layer perceptrons", found from the corpus's own phrase table (search/compounds.py)."""

from __future__ import annotations

import math

import pytest

from papersift.index.termlexicon import analyzed
from papersift.search.compounds import compound_spellings, equal_weight, gap_spellings
from papersift.search.crosslingual import ALTERNATIVE_WEIGHT, phrase_query
from papersift.search.query import AnyOf, ParsedQuery, Words
from papersift.search.termlexicon import QueryReading, TermReading


class Table:
    """A phrase table: spelling -> papers, keyed as the term lexicon keys them (analyzed)."""

    def __init__(self, used: dict[str, int], papers_total: int = 10_000):
        self.used = {analyzed(text): (text, papers) for text, papers in used.items()}
        self.papers_total = papers_total

    def phrase(self, key: str) -> tuple[str, int] | None:
        return self.used.get(key)

    def papers(self, key: str) -> int:
        found = self.used.get(key)
        return found[1] if found is not None else 0


USED = {
    "hyperparameter": 600, "hyper": 300, "parameter": 2000, "optimization": 5000, "hyper-parameter": 190,
    "hyperparameter optimization": 87, "hyper-parameter optimization": 11,
    "multilayer": 140, "multi": 900, "layer": 3000, "multi-layer": 215, "perceptrons": 300,
    "multilayer perceptrons": 57, "multi-layer perceptrons": 76,
    "feedforward": 216, "feed": 400, "forward": 1500, "feed forward": 200,
    "network": 10_000, "net": 800, "work": 4000, "net work": 23,  # "net- work": a line-break hyphenation
    "neural": 8000, "neural networks": 6000,
    "crowdsourcing": 113, "crowd": 90, "sourcing": 40, "crowd sourcing": 14,
}
TABLE = Table(USED)


def test_a_hyphenated_pair_is_also_searched_closed_when_papers_write_it_so():
    assert compound_spellings("hyper-parameter optimization", TABLE) == ("hyperparameter optimization",)
    assert compound_spellings("multi-layer perceptrons", TABLE) == ("multilayer perceptrons",)


def test_a_closed_word_is_also_searched_as_the_pair_papers_write():
    assert compound_spellings("multilayer perceptrons", TABLE) == ("multi-layer perceptrons",)
    assert compound_spellings("crowdsourcing", TABLE) == ("crowd-sourcing",)


def test_two_words_are_also_searched_as_the_word_papers_make_of_them():
    assert compound_spellings("feed forward", TABLE) == ("feedforward",)


def test_no_spelling_papers_do_not_use():
    # a line-break hyphenation ("net- work") is no spelling: far rarer than the word
    assert compound_spellings("network", TABLE) == ()
    assert compound_spellings("neural networks", TABLE) == ()
    # each word has another spelling, but no paper writes the whole phrase so
    assert compound_spellings("multi-layer optimization", TABLE) == ()
    assert compound_spellings("", TABLE) == ()


def test_a_spelling_scores_as_the_phrase_it_spells():
    # BM25 weighs a phrase by its words' summed idf: three words outscore two by their count alone
    def idf(papers: int) -> float:
        return math.log(1 + (TABLE.papers_total - papers + 0.5) / (papers + 0.5))

    closed = idf(600) + idf(5000)
    hyphenated = idf(300) + idf(2000) + idf(5000)
    weight = equal_weight("hyperparameter optimization", "hyper-parameter optimization", TABLE)
    assert weight == pytest.approx(hyphenated / closed) and weight > 1
    assert equal_weight("hyper-parameter optimization", "hyperparameter optimization", TABLE) == pytest.approx(1 / weight)


def _one_term(term: TermReading) -> QueryReading:
    return QueryReading(term.chinese, term.english, (term,))


def test_the_spellings_ask_the_phrase_table_for_paper_counts_only():
    """The rules need a phrase's papers, never its spelling: the term lexicon of a server answers a
    count from memory (its key table), a spelling from SQLite (~10 us a look-up)."""

    class CountsOnly(Table):
        def phrase(self, key: str) -> tuple[str, int] | None:
            raise AssertionError(f"the spelling of {key!r} asked")

    counts = CountsOnly(USED)
    for text in ("hyper-parameter optimization", "multilayer perceptrons", "crowdsourcing", "feed forward", "network"):
        assert compound_spellings(text, counts) == compound_spellings(text, TABLE)
    assert equal_weight("hyperparameter optimization", "hyper-parameter optimization", counts) == pytest.approx(
        equal_weight("hyperparameter optimization", "hyper-parameter optimization", TABLE))


def test_a_terms_phrase_is_searched_in_every_spelling_papers_use():
    sure = TermReading("超参数优化", "hyper-parameter optimization", (), 11, confidence=0.95, source="glossary")
    query = phrase_query(ParsedQuery(), _one_term(sure), TABLE)
    weight = equal_weight("hyperparameter optimization", "hyper-parameter optimization", TABLE)
    assert query is not None and query.required == (AnyOf((
        Words("hyper-parameter optimization", phrase=True),
        Words("hyperparameter optimization", phrase=True, weight=weight))),)
    # a guess's alternative too, at the alternative's weight
    guess = TermReading("多层感知机", "neural networks", ("multilayer perceptrons",), 9, confidence=0.4)
    query = phrase_query(ParsedQuery(), _one_term(guess), TABLE)
    spelled = ALTERNATIVE_WEIGHT * equal_weight("multi-layer perceptrons", "multilayer perceptrons", TABLE)
    assert query is not None and query.required == (AnyOf((
        Words("neural networks", phrase=True),
        Words("multilayer perceptrons", phrase=True, weight=ALTERNATIVE_WEIGHT),
        Words("multi-layer perceptrons", phrase=True, weight=spelled))),)


def test_without_the_phrase_table_a_term_is_searched_as_read():
    sure = TermReading("超参数优化", "hyper-parameter optimization", (), 11, confidence=0.95, source="glossary")
    query = phrase_query(ParsedQuery(), _one_term(sure))
    assert query is not None and query.required == (AnyOf((Words("hyper-parameter optimization", phrase=True),)),)


def test_the_spellings_find_the_papers_that_write_the_term_closed(service):
    # the fixture corpus writes "pretrained" and "pre-trained"; a reading in one spelling finds both
    lexicon = service.term_lexicon
    assert lexicon is not None
    term = TermReading("预训练", "pre-trained", (), 0, confidence=0.95, source="glossary")
    as_read = phrase_query(ParsedQuery(), _one_term(term))
    spelled = phrase_query(ParsedQuery(), _one_term(term), lexicon)
    assert as_read is not None and spelled is not None
    found = service.backend.search(spelled, limit=1000, with_facets=False, with_papers=True)
    read = service.backend.search(as_read, limit=1000, with_facets=False)
    closed = [paper for paper in found.papers if "pretrained" in f"{paper.title} {paper.abstract}".lower()
              and "pre-trained" not in f"{paper.title} {paper.abstract}".lower()]
    assert closed and found.total > read.total
    assert not {paper.id for paper in closed} & set(read.paper_ids)


# Papers with each phrase, as the index counts them (a stop word's place is kept: "spike and slab"
# is also "spike or slab", not "spike slab").
PHRASE_PAPERS = {"spike-slab": 1, "spike and slab": 31, "batch learning": 28, "batch and learning": 46,
                 "encoder-decoder": 134, "encoder and decoder": 55,
                 "alpha beta gamma": 1, "alpha and beta gamma": 40, "alpha beta and gamma": 60}


def test_a_reading_papers_hardly_write_is_also_searched_with_a_stop_word_between_its_words():
    count = lambda text: PHRASE_PAPERS.get(text, 0)  # noqa: E731
    assert gap_spellings("spike-slab", count) == ("spike and slab",)
    assert gap_spellings("alpha beta gamma", count) == ("alpha beta and gamma", "alpha and beta gamma")  # most used first
    # a reading papers write (over MIN_SHARE as often): the gap would match any stop word ("batch of learning")
    assert gap_spellings("batch learning", count) == () and gap_spellings("encoder-decoder", count) == ()
    assert gap_spellings("spike", count) == () and gap_spellings("alpha beta gamma delta", count) == ()  # one word; a description


def test_a_reading_used_by_enough_of_its_rarest_words_papers_needs_no_gap_searched():
    # a spelling's papers are at most its rarest term's: a reading used by MIN_SHARE of those is
    # kept alone without counting any spelling with a gap (a phrase search each)
    term_papers = {"spike": 40, "slab": 35, "batch": 300, "learn": 5000, "alpha": 900, "beta": 800, "gamma": 700}.__getitem__
    asked: list[str] = []

    def count(text: str) -> int:
        asked.append(text)
        return PHRASE_PAPERS.get(text, 0)

    assert gap_spellings("batch learning", count, term_papers) == () and asked == ["batch learning"]
    asked.clear()  # 1 paper writes "spike-slab", under 5% of the 35 with "slab": its gap spelling is counted
    assert gap_spellings("spike-slab", count, term_papers) == ("spike and slab",) and asked == ["spike-slab", "spike and slab"]
    for text in PHRASE_PAPERS:  # the same spellings as counting every one (bounds the counts hold)
        bound = lambda term: max(PHRASE_PAPERS.values())  # noqa: E731
        assert gap_spellings(text, count, bound) == gap_spellings(text, count)


def test_the_spelling_with_a_stop_word_is_searched_beside_the_reading_not_beside_alternatives():
    guess = TermReading("尖峰和平板", "spike-slab", ("batch learning",), 1, confidence=0.4)
    query = phrase_query(ParsedQuery(), _one_term(guess), None, lambda text: PHRASE_PAPERS.get(text, 0))
    assert query is not None and query.required == (AnyOf((
        Words("spike-slab", phrase=True), Words("batch learning", phrase=True, weight=ALTERNATIVE_WEIGHT),
        Words("spike and slab", phrase=True))),)


def test_the_index_counts_a_stop_words_place_in_a_phrase(service):
    # what gap_spellings relies on: the analyzer drops "and" but keeps its position
    assert service.phrase_papers("of the") == 0
    with_gap, without = service.phrase_papers("neural and networks"), service.phrase_papers("neural networks")
    assert without > 0 and with_gap < without
    assert service.phrase_papers("state of the art") == service.phrase_papers("state in a art") > 0


def test_a_words_split_is_worked_out_once_per_phrase_table():
    """Splitting a word tries every cut (each analyzed and looked up): remembered per phrase table,
    as the readings of Chinese terms share most of their words."""
    asked: list[str] = []

    class Counted(Table):
        def papers(self, key: str) -> int:
            asked.append(key)
            return super().papers(key)

    table = Counted({"crowdsourcing": 113, "crowd": 90, "sourcing": 40, "crowd sourcing": 14})
    assert compound_spellings("crowdsourcing", table) == ("crowd-sourcing",)
    first = list(asked)
    asked.clear()
    assert compound_spellings("crowdsourcing", table) == ("crowd-sourcing",)
    assert len(first) > 8 and asked == [analyzed("crowdsourcing"), analyzed("crowd-sourcing")]  # no cut again
    asked.clear()  # another phrase table answers for itself
    assert compound_spellings("crowdsourcing", Counted({"crowdsourcing": 113})) == () and len(asked) > 8
