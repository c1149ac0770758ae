"""Topic fixtures: the real labeled papers, and a data dir with the 2,000-paper sample,
a keyword index and a vector index.

The vectors are the papers' own tf-idf reduced by SVD (64-d, unit length): they stand in
for the encoder's, which would take minutes on CPU, and have the same shape and meaning
(text similarity) for everything the topic code does with them.
"""

from __future__ import annotations

import pytest
from topic_vectors import publish_text_vectors

from papersift.index import lexical
from papersift.record import paper_from_dict
from papersift.store import Store
from papersift.topics.dataset import LabeledSet, labeled_set


@pytest.fixture(scope="session")
def corpus_labeled(labeled_records) -> LabeledSet:
    """All labeled papers of the real corpus (the 1,992 ICLR 2024 papers; tests/fixtures/corpus)."""
    return labeled_set([paper_from_dict(record) for record in labeled_records])


@pytest.fixture(scope="session")
def topics_data_dir(sample_records, tmp_path_factory):
    """Sample papers + keyword index + stand-in vectors; tests may write predictions here."""
    data_dir = tmp_path_factory.mktemp("topics_data")
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in sample_records])
    store.close()
    lexical.build(data_dir)
    publish_text_vectors(data_dir)
    return data_dir
