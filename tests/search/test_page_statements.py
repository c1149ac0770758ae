"""A keyword page asks the store nothing between its periodic checks (issue #32): query
intent's store stamp, the predictions table and the vocabulary file are looked at every
RECHECK_S seconds, not on every request (each was a statement or a stat a page)."""

from __future__ import annotations

import os

import pytest

from papersift.search.types import SearchRequest

QUERIES = ["graph neural networks", "diffusion", "reinforcement learning policy"]


def fresh_service(indexed_dir, monkeypatch, recheck_s: float):
    import papersift.index.predictions as predictions
    import papersift.search.intent as intent
    import papersift.search.spelling as spelling
    from papersift.search.service import SearchService

    for module in (predictions, intent, spelling):
        monkeypatch.setattr(module, "RECHECK_S", recheck_s)
    return SearchService(indexed_dir)


def costs_of_pages(service, monkeypatch) -> tuple[list[str], list[str]]:
    """(SQL statements, stat calls of the vocabulary) of three pages asked once before (what
    their words name, read once per text, is not what is counted)."""
    for query in QUERIES:
        service.search(SearchRequest(query=query, mode="keyword"))
    statements: list[str] = []
    for connection in (service.intents._store()._conn(), service._prediction_store().conn):
        connection.set_trace_callback(statements.append)
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr("papersift.search.spelling.os.stat",
                        lambda path, *args, **kwargs: stats.append(str(path)) or real_stat(path, *args, **kwargs))
    for query in QUERIES:
        assert service.search(SearchRequest(query=query, mode="keyword")).total > 0
    return statements, stats


def test_pages_within_the_interval_ask_the_store_nothing(indexed_dir, monkeypatch):
    statements, stats = costs_of_pages(fresh_service(indexed_dir, monkeypatch, 3600.0), monkeypatch)
    assert statements == [] and stats == []


@pytest.mark.parametrize("recheck_s", [0.0])
def test_once_the_interval_is_past_every_page_looks_again(indexed_dir, monkeypatch, recheck_s):
    """The same pages with no interval: each checks the store's stamp (one statement), the
    predictions table and the vocabulary's file (what the interval saves)."""
    statements, stats = costs_of_pages(fresh_service(indexed_dir, monkeypatch, recheck_s), monkeypatch)
    stamps = [sql for sql in statements if "MAX(seq)" in sql]
    tables = [sql for sql in statements if "sqlite_master" in sql]
    assert len(stamps) == len(QUERIES) and len(tables) == len(QUERIES)
    assert len(stats) >= len(QUERIES)


# -- a Chinese page: the term lexicon and the phrase vectors ---------------------------
CHINESE_QUERIES = ["图神经网络", "强化学习", "注意力机制"]


def chinese_page_looks(indexed_dir, monkeypatch, recheck_s: float) -> list[str]:
    """What three Chinese pages (after a first one) look for on disk: the term lexicon's file
    (lexicon_for: a stat) and the phrase vectors' generation (phrase_bridge_for: a pointer file)."""
    from papersift.search import service as service_module

    monkeypatch.setattr(service_module, "RECHECK_S", recheck_s)
    looks: list[str] = []
    real_lexicon, real_phrases = service_module.lexicon_for, service_module.phrase_bridge_for
    monkeypatch.setattr(service_module, "lexicon_for", lambda data_dir: looks.append("lexicon") or real_lexicon(data_dir))
    monkeypatch.setattr(service_module, "phrase_bridge_for",
                        lambda data_dir: looks.append("phrases") or real_phrases(data_dir))
    service = service_module.SearchService(indexed_dir)
    service.search(SearchRequest(query="预热", mode="keyword"))
    looks.clear()
    for query in CHINESE_QUERIES:
        response = service.search(SearchRequest(query=query, mode="keyword"))
        assert response.reading is not None and response.reading.english  # read through the lexicon
    return looks


def test_chinese_pages_within_the_interval_look_for_no_lexicon(indexed_dir, monkeypatch):
    assert chinese_page_looks(indexed_dir, monkeypatch, 3600.0) == []


def test_once_the_interval_is_past_a_chinese_page_looks_again(indexed_dir, monkeypatch):
    """(`index` replaces the lexicon, `embed` publishes new phrase vectors: a server sees them.)"""
    looks = chinese_page_looks(indexed_dir, monkeypatch, 0.0)
    assert looks.count("lexicon") == looks.count("phrases") >= len(CHINESE_QUERIES)
