"""CC-CEDICT glosses as corpus-style English terms."""

from __future__ import annotations

import pytest

from papersift.search.cedict import english_glosses, gloss_terms


@pytest.mark.parametrize(("definition", "term"), [
    ("to regret", "regret"),
    ("Bayes (name)", "bayes"),
    ("Fine Tuning", "fine tuning"),
    ("to be sorry that", "sorry that"),
    (" tactics", "tactics"),
    ("variant of 五筆字型|五笔字型[wu3 bi3 zi4 xing2]", None),  # a pointer, not a meaning
    ("CL:個|个[ge4],位[wei4]", None),
    ("surname Li", None),
    ("Thomas Bayes (1702-1761), English mathematician and theologian", None),  # more than three words
    ("1/2", None),
    ("", None),
])
def test_a_definition_becomes_a_term_or_nothing(definition, term):
    assert gloss_terms(definition) == term


def test_real_entries_give_their_senses_in_dictionary_order():
    assert english_glosses("评论家") == ("critic", "reviewer")
    assert english_glosses("贝叶斯") == ("bayes",)
    assert "regret" in english_glosses("遗憾")
    assert english_glosses("對抗") == english_glosses("对抗") != ()  # traditional and simplified
    assert english_glosses("图神经网络") == ()  # not in the dictionary: the bridge alone decides


def test_a_process_reading_a_few_words_scans_for_them_instead_of_loading_every_entry():
    from papersift.search import cedict

    cedict.glossary.cache_clear()
    cedict._scanned.cache_clear()
    try:
        assert english_glosses("评论家") == ("critic", "reviewer")
        assert english_glosses("對抗") == english_glosses("对抗") != ()
        assert cedict.glossary.cache_info().currsize == 0  # ~0.9 s a CLI query no longer pays
        for number in range(cedict.SCANNED_WORDS):
            english_glosses(f"词{number}")
        english_glosses("贝叶斯")  # past SCANNED_WORDS words: every entry, loaded once
        assert cedict.glossary.cache_info().currsize == 1
    finally:
        cedict._scanned.cache_clear()


def test_a_scanned_word_has_exactly_the_senses_of_the_whole_glossary():
    import random

    from papersift.search import cedict

    everything = cedict.glossary()
    headwords = random.Random(7).sample(sorted(everything), 400)
    headwords += ["对抗", "對抗", "强化学习", "中国", "图神经网络", "支持向量机", "神经网络"]
    assert [cedict._scanned.__wrapped__(word) for word in headwords] == [everything.get(word, ()) for word in headwords]
