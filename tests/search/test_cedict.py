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
