"""An indexed copy of the sample data dir, shared by the search tests (read-only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from papersift.index import lexical, termlexicon
from papersift.store import DB_FILE
from served_papers import built_once, copy_data_dir


def indexed_copy(source: Path, target: Path) -> Path:
    """A writable copy of the data dir `source` (tests must not write to it) with its keyword
    index and term lexicon built. The indexed data dir is built once per source state, as a
    template beside it (named by the store's size and time), and copied."""
    stat = (source / DB_FILE).stat()

    def build(template: Path) -> None:
        for path in source.glob(f"{DB_FILE}*"):
            shutil.copy2(path, template / path.name)
        lexical.build(template)
        termlexicon.build_for_store(template)

    template = source.parent / f".{source.name}-indexed-{stat.st_size}-{stat.st_mtime_ns}"
    return copy_data_dir(built_once(template, build), target)


def navigable_copy(source: Path, target: Path) -> Path:
    """An indexed copy with what query intent and "did you mean" read (author identities, the
    corpus vocabulary) and pseudo-random e5 vectors, so every mode runs (tests/hybrid_service.py)."""
    from hybrid_service import add_vectors_and_bridge
    from papersift.index import vocabulary
    from papersift.people.identity import build as build_identities
    from papersift.store import Store

    data_dir = indexed_copy(source, target)
    store = Store(data_dir)
    build_identities(store)
    store.close()
    vocabulary.build_for_store(data_dir)
    add_vectors_and_bridge(data_dir)
    return data_dir


@pytest.fixture(scope="session")
def indexed_dir(sample_data_dir, tmp_path_factory) -> Path:
    return indexed_copy(sample_data_dir, tmp_path_factory.mktemp("indexed"))


@pytest.fixture(scope="session")
def service(indexed_dir):
    from papersift.search.service import SearchService

    return SearchService(indexed_dir)


def namesakes_copy(source: Path, target: Path) -> Path:
    """60 papers of `source`, nine of them by "Ada Lovelace": six by one person (OpenReview id
    ~Ada_Lovelace1, an affiliation), three by another (~Ada_Lovelace2, always with "Charles
    <Babbage>": a co-author hint, escaped on the page), so identities make two people of one name."""
    from dataclasses import replace

    from papersift.index import lexical
    from papersift.people.identity import build as build_identities
    from papersift.store import Store

    papers = sorted((paper for _, paper in Store(source, readonly=True).iter_papers(0)), key=lambda p: p.id)[:60]
    blank = [""] * 40
    changed = [replace(paper, authors=("Ada Lovelace", *(("Charles <Babbage>",) if at >= 6 else paper.authors[1:2]),
                                       *paper.authors[2:]),
                       author_ids=("~Ada_Lovelace1" if at < 6 else "~Ada_Lovelace2", *blank[:len(paper.authors) - 1]),
                       affiliations=("Analytical Engine Lab" if at < 6 else "", *blank[:len(paper.authors) - 1]))
               if at < 9 else paper for at, paper in enumerate(papers)]
    store = Store(target)
    store.upsert(changed)
    build_identities(store)
    store.close()
    lexical.build(target)
    return target
