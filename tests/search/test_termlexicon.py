"""Chinese terms read as the English phrases papers use (composition over the term lexicon)."""

from __future__ import annotations

import pytest

from papersift.index.cedict import dictionary_path
from papersift.index.termlexicon import build_lexicon, dictionary
from papersift.search.crosslingual import read_query
from papersift.search.termlexicon import TermLexicon, english_text

PAPERS = [
    *[f"Weakly supervised learning from noisy labels, study {n}" for n in range(6)],
    *[f"Graph neural networks suffer from over-smoothing in deep layers, case {n}" for n in range(30)],
    *[f"The softmax function in attention layers, note {n}" for n in range(6)],
    *[f"Graph theory meets supervised learning, part {n}" for n in range(3)],
    *[f"Internet traffic and the twin prime data, item {n}" for n in range(3)],
    # 神经网络 + 图 (map) read the other way round: a phrase too, but a less sure reading
    *[f"Neural network maps of the cortex, figure {n}" for n in range(5)],
]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> TermLexicon:
    data_dir = tmp_path_factory.mktemp("lexicon")
    build_lexicon(data_dir, PAPERS, dictionary(str(dictionary_path())), len(PAPERS), 1)
    return TermLexicon.open(data_dir)


def readings(lexicon: TermLexicon, text: str) -> list[tuple[str, str]]:
    return [(term.chinese, term.english) for term in lexicon.read(text).terms]


def test_a_compound_term_reads_as_the_phrase_papers_use(lexicon):
    # 弱 weak + 监督 supervise + 学习 learn: the corpus spells it with its own morphology
    reading = lexicon.read("弱监督学习")
    assert reading.english == "weakly supervised learning"
    assert readings(lexicon, "弱监督学习") == [("弱监督学习", "weakly supervised learning")]


def test_a_character_sense_induced_from_compounds_composes_graph_neural_networks(lexicon):
    # CC-CEDICT's 图 is diagram/picture/chart; "graph" comes from 图论 (graph theory)
    assert readings(lexicon, "图神经网络") == [("图神经网络", "graph neural networks")]


def test_a_word_of_a_longer_sense_reads_only_when_papers_use_the_composition(lexicon):
    # 过: "to go over", "too-"; papers say "over-smoothing"
    assert readings(lexicon, "图神经网络 过平滑") == [("图神经网络", "graph neural networks"), ("过平滑", "over-smoothing")]


def test_a_term_without_spaces_is_cut_into_the_fewest_phrases(lexicon):
    assert [english for _, english in readings(lexicon, "图神经网络过平滑")] == ["graph neural networks", "over-smoothing"]


def test_latin_words_inside_a_term_take_part_as_themselves(lexicon):
    assert lexicon.read("Softmax函数").english == "softmax function"


def test_latin_words_of_the_query_are_kept(lexicon):
    assert lexicon.read("attention 弱监督学习").english == "attention weakly supervised learning"


def test_a_linking_character_is_passed_over_not_read(lexicon):
    # 的 alone has senses such as "target" and "taxi": none of them is what the query says
    english = lexicon.read("图神经网络的过平滑").english
    assert english == "graph neural networks over-smoothing"


def test_a_term_nothing_can_read_says_so(lexicon):
    reading = lexicon.read("饕餮")
    assert reading.english == "" and [term.english for term in reading.terms] == [""]


def test_no_reading_without_chinese(lexicon):
    assert lexicon.read("graph neural networks") is None


def test_another_reading_can_be_picked(lexicon):
    reading = lexicon.read("图神经网络 过平滑")
    graph = reading.terms[0]
    assert graph.alternatives and graph.english not in graph.alternatives
    picked = reading.with_choice("图神经网络", graph.alternatives[0])
    assert picked.english == f"{graph.alternatives[0]} over-smoothing"
    assert [term.english for term in picked.terms] == [graph.alternatives[0], "over-smoothing"]


def test_readings_few_papers_use_are_not_offered(lexicon):
    # 网络: "network" (35 papers here) and "internet" (3): a reader is not offered a rarity
    network = lexicon.read("孪生网络").terms[-1]
    assert network.english == "networks" and "internet" not in network.alternatives


def test_english_text_replaces_longest_terms_first():
    assert english_text("图神经网络 x", {"图神经网络": "graph neural networks", "神经网络": "neural networks"}) == \
        "graph neural networks x"


def test_without_a_lexicon_the_reading_is_the_dictionary_carry_over():
    reading = read_query("遗憾", None)
    assert reading.terms == () and "regret" in reading.english


def test_a_long_description_is_searched_with_its_words_carried_over_too(lexicon):
    # known-item zh dev (sentences): the reading alone fell to MRR@10 0.540 from the carry-over's 0.725; both 0.805
    description = read_query("我们研究图神经网络中的过平滑问题和弱监督学习", lexicon)
    assert description.extra and description.searched.startswith(description.english)
    term = read_query("弱监督学习", lexicon)
    assert term.extra == "" and term.searched == "weakly supervised learning"


@pytest.mark.parametrize("checks", [5, 12, 20, 40, 4000])
def test_a_reading_does_not_depend_on_what_was_read_before(lexicon, monkeypatch, checks):
    # A read may make only so many phrase checks (MAX_LOOKUPS); what earlier reads composed is
    # remembered, but charged as if checked again, so a read that runs out stops where a fresh
    # process stops (a server and the CLI read a term alike, whatever was asked before).
    monkeypatch.setattr("papersift.search.termlexicon.MAX_LOOKUPS", checks)
    texts = ["图神经网络过平滑", "神经网络", "图神经网络", "弱监督学习", "监督学习", "过平滑"]
    fresh = {text: TermLexicon(lexicon.path).read(text) for text in texts}
    for order in (texts, texts[::-1], texts[1::2] + texts[::2]):
        shared = TermLexicon(lexicon.path)
        assert {text: shared.read(text) for text in order} == fresh
        assert {text: shared.read(text) for text in order} == fresh  # and again, remembered


def test_a_reading_is_remembered_per_text_and_the_memo_is_bounded(lexicon, monkeypatch):
    monkeypatch.setattr("papersift.search.termlexicon.READINGS_MEMO_SIZE", 2)
    fresh = TermLexicon(lexicon.path)
    first = fresh.read("弱监督学习")
    assert fresh.read("弱监督学习") is first  # the same object: not read again
    fresh.read("图神经网络")
    fresh.read("过平滑")  # a third text: the memo was full and starts over
    assert len(fresh._readings) == 1
    assert fresh.read("弱监督学习") == first and fresh.read("弱监督学习") is not first


def test_with_the_phrase_keys_in_memory_every_phrase_is_found_and_misses_need_no_query(lexicon):
    import sqlite3

    with sqlite3.connect(lexicon.path) as db:
        rows = {key: (surface, papers) for key, surface, papers in db.execute("SELECT key, surface, papers FROM phrase")}
    held = TermLexicon(lexicon.path)
    held.load_keys()
    assert all(held.phrase(key) == found for key, found in rows.items())  # no phrase is lost
    queries: list[str] = []
    held._db().set_trace_callback(queries.append)
    misses = [f"{key} zzqx" for key in list(rows)[:200]]
    assert all(held.phrase(key) is None for key in misses)
    assert len(queries) <= 5  # a false positive now and then (0.1%) still asks SQLite
    texts = ["图神经网络过平滑", "弱监督学习", "Softmax函数", "网络"]
    assert [held.read(text) for text in texts] == [TermLexicon(lexicon.path).read(text) for text in texts]


def test_with_the_phrase_keys_in_memory_the_walk_counts_papers_with_no_query(lexicon):
    # the walk's phrase checks ask papers(): with the keys held, hits are answered from memory
    # too (the exact key table), not only the misses the Bloom filter rules out
    import sqlite3

    with sqlite3.connect(lexicon.path) as db:
        rows = dict(db.execute("SELECT key, papers FROM phrase"))
    held = TermLexicon(lexicon.path)
    held.load_keys()
    queries: list[str] = []
    held._db().set_trace_callback(queries.append)
    assert [held.papers(key) for key in rows] == list(rows.values())
    assert all(held.papers(f"{key} zzqx") == 0 for key in rows)
    assert queries == []
    assert [TermLexicon(lexicon.path).papers(key) for key in rows] == list(rows.values())  # and without keys held


def test_with_the_headwords_in_memory_a_string_no_headword_is_needs_no_query(lexicon):
    import sqlite3

    with sqlite3.connect(lexicon.path) as db:
        headwords = [word for (word,) in db.execute("SELECT headword FROM sense")]
    held = TermLexicon(lexicon.path)
    held.load_keys()
    queries: list[str] = []
    held._db().set_trace_callback(queries.append)
    strings = [f"{word}{suffix}" for word in headwords for suffix in ("龘", "齉龘")]
    assert all(held.senses(text) == () for text in strings)
    assert len(queries) <= 1 + len(strings) // 100  # a false positive now and then (0.1%) still asks SQLite
    # and no headword is lost
    assert [held.senses(word) for word in headwords] == [TermLexicon(lexicon.path).senses(word) for word in headwords]


def _composed_one_check_at_a_time(lexicon: TermLexicon, units: tuple, left: int):
    """The composition as it was written before the checks were remembered per (key, senses):
    each sense checked in turn, depth first (the reference the faster walk must equal)."""
    from papersift.index.termlexicon import SECONDARY
    from papersift.search.termlexicon import MIN_COMPOSED_PAPERS, _Composed, _keep, _rank

    budget = [left]
    found: dict = {}

    def lookup(key: str):
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        return lexicon.phrase(key)

    def extend(at: int, key: str, pieces: int, secondary: int) -> None:
        if at == len(units):
            spelled = lexicon.phrase(key) if key else None
            if spelled and (pieces == 1 or spelled[1] >= MIN_COMPOSED_PAPERS):
                _keep(found, _Composed(key, spelled[1], pieces, secondary))
            return
        for end, senses in lexicon._pieces(units, at):
            for sense in senses:
                longer = f"{key} {sense.lstrip(SECONDARY)}".strip()
                if not sense:
                    extend(end, key, pieces, secondary)
                elif lookup(longer):
                    extend(end, longer, pieces + 1, secondary + sense.startswith(SECONDARY))

    extend(0, "", 0, 0)
    return sorted(found.values(), key=_rank), budget[0]


@pytest.mark.parametrize("keys_held", [False, True])
def test_remembered_checks_compose_what_checking_each_sense_in_turn_does(lexicon, keys_held):
    # the walk reuses each (key, senses) pair's check answers but charges and refuses checks in
    # the same order, so a spent budget cuts the same compositions off; with the keys held, a
    # (key, senses) pair's checks are answered in one pass over the key filter and table
    from papersift.search.termlexicon import _Budget, _compose_in_order, _units

    if keys_held:
        lexicon = TermLexicon(lexicon.path)
        lexicon.load_keys()
    units = tuple(_units("图神经网络过平滑的弱监督学习Softmax函数"))
    compared = 0
    for left in [*range(0, 80, 3), 150, 400, 4000]:
        for start in range(len(units)):
            for end in range(start + 1, min(len(units), start + 7) + 1):
                part = units[start:end]
                budget = _Budget(left)
                assert (_compose_in_order(lexicon, part, budget), budget.left) == \
                    _composed_one_check_at_a_time(lexicon, part, left)
                compared += 1
    assert compared > 1000


class _SwapOneCheckAtATime(TermLexicon):
    """The walk as it was before its checks skipped the call layers (pagespeed) and the halves'
    pairs were charged at once (termwalk): the halves read the other way round checked one at a
    time, each charged as it is checked, each key (and each sense's key) through phrase(); each
    part walked alone (before one walk per start composed every part it starts), every chunk of
    the token composed (before a token that reads whole skipped the others) (the reference the
    faster walk must read alike)."""

    def papers(self, key: str) -> int:
        spelled = self.phrase(key)
        return spelled[1] if spelled is not None else 0

    def _in_order(self, units, start, end, budget):
        from papersift.search.termlexicon import _compose_in_order

        part = tuple(units[start:end])
        if part not in budget.parts:
            budget.parts[part] = _compose_in_order(self, part, budget)
        return budget.parts[part]

    def _whole_cover(self, units, budget):
        return None

    def _compose(self, units, start, end, budget):
        from papersift.search.termlexicon import MIN_COMPOSED_PAPERS, _Composed, _keep, _rank

        def lookup(key: str):
            if budget.left <= 0:
                return None
            budget.left -= 1
            return self.phrase(key)

        found: dict = {}
        for composed in self._in_order(units, start, end, budget):
            _keep(found, composed)
        for split in range(start + 1, end):
            for right in self._in_order(units, split, end, budget):
                for left in self._in_order(units, start, split, budget):
                    key = f"{right.key} {left.key}"
                    spelled = lookup(key)
                    if spelled and spelled[1] >= MIN_COMPOSED_PAPERS:
                        _keep(found, _Composed(key, spelled[1], left.pieces + right.pieces,
                                               left.secondary + right.secondary, swapped=True))
        return sorted(found.values(), key=_rank)


def _read_both_ways(path, texts: list[str], keys_held: bool) -> tuple[list, list]:
    faster, reference = TermLexicon(path), _SwapOneCheckAtATime(path)
    if keys_held:
        faster.load_keys()
        reference.load_keys()
    return [faster.read(text) for text in texts], [reference.read(text) for text in texts]


TERMS = ["图神经网络过平滑", "弱监督学习", "Softmax函数", "网络", "神经网络图", "学习监督弱", "图论的监督学习",
         "过平滑的图神经网络", "平滑网络学习图", "互联网流量孪生素数", "监督的弱学习网络图"]


@pytest.mark.parametrize("walk_min_left", [1, 1_200])
@pytest.mark.parametrize("keys_held", [False, True])
def test_the_faster_walk_reads_as_checking_each_key_in_turn(lexicon, monkeypatch, keys_held, walk_min_left):
    # the same readings however soon the budget runs out (checks charged and refused in the same
    # order), whether parts are composed by the walk from their start down to a budget of 1 or alone
    # below 1,200 checks left
    monkeypatch.setattr("papersift.search.termlexicon.WALK_FROM_START_MIN_LEFT", walk_min_left)
    for checks in [*range(1, 160), 400, 4000]:
        monkeypatch.setattr("papersift.search.termlexicon.MAX_LOOKUPS", checks)
        faster, reference = _read_both_ways(lexicon.path, TERMS, keys_held)
        assert faster == reference, checks
    assert any(reading.english for reading in faster)


@pytest.fixture(scope="module")
def corpus_lexicon(tmp_path_factory):
    """A lexicon of the fixture corpus's 1,992 ICLR papers: phrases enough for the dev terms to compose."""
    from tests.conftest import LABELED, read_jsonl_gz

    texts = [f"{record['title']}. {record.get('abstract') or ''}" for record in read_jsonl_gz(LABELED)]
    data_dir = tmp_path_factory.mktemp("corpus-lexicon")
    build_lexicon(data_dir, texts, dictionary(str(dictionary_path())), len(texts), 1)
    return TermLexicon.open(data_dir)


@pytest.mark.parametrize("keys_held", [False, True])
def test_the_faster_walk_reads_every_zhterms_dev_term_as_before(shared_data, corpus_lexicon, keys_held):
    import orjson

    lines = (shared_data / "zhterms" / "queries_dev.jsonl").read_bytes().splitlines()
    terms = [record["text"] for record in map(orjson.loads, lines) if record["lang"] == "zh"]
    assert len(terms) == 300
    faster, reference = _read_both_ways(corpus_lexicon.path, terms, keys_held)
    assert faster == reference
    assert sum(bool(reading.english) for reading in faster) > 100  # terms that composed, not 300 empty readings


def test_the_count_of_chinese_papers_is_read_once_per_lexicon(lexicon):
    # every Chinese query asks it (service._no_chinese_papers): one query per opened file, not per search
    opened = TermLexicon(lexicon.path)
    queries: list[str] = []
    opened._db().set_trace_callback(queries.append)
    assert [opened.chinese_papers for _ in range(3)] == [0, 0, 0]
    assert len(queries) == 1


def test_search_side_phrase_keys_are_the_indexs_and_remembered():
    # a Chinese page asks for ~100 phrase keys, mostly of the same words: the analyzer runs once a text
    from papersift.index.termlexicon import analyzed as index_analyzed
    from papersift.search.termlexicon import analyzed

    texts = ["Graph Neural Networks", "hyper-parameter optimization", "nesterov’s accelerated gradient", ""]
    assert [analyzed(text) for text in texts] == [index_analyzed(text) for text in texts]
    hits = analyzed.cache_info().hits
    analyzed("Graph Neural Networks")
    assert analyzed.cache_info().hits == hits + 1
