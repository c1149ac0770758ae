from __future__ import annotations

import pytest

from papersift.i18n import LANGS, MESSAGES, negotiate_language, translate


@pytest.mark.parametrize(("header", "expected"), [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
    ("en-US,en;q=0.9", "en"),
    ("en-GB,zh;q=0.5", "en"),
    ("fr-FR,fr;q=0.9,en;q=0.5,zh;q=0.4", "en"),
    ("de-DE,zh-TW;q=0.7", "zh"),
    ("zh;q=0.2,en;q=0.8", "en"),
    ("en;q=0,zh;q=0.1", "zh"),
    ("fr", "zh"),
    ("", "zh"),
    (None, "zh"),
    ("en;q=abc", "zh"),
    (",,;;q=,", "zh"),
])
def test_language_follows_accept_language_by_quality(header, expected):
    assert negotiate_language(header) == expected


def test_every_message_exists_in_both_languages():
    assert all(set(texts) == set(LANGS) and all(texts.values()) for texts in MESSAGES.values())


def test_translate_fills_values():
    assert translate("results_count", "zh", total="1,234") == "共 1,234 篇论文"
    assert translate("results_count", "en", total="7") == "7 papers"
    assert translate("site_title", "zh") == "论文检索" and translate("site_title", "en") == "Paper Search"


def test_a_missing_message_key_falls_back_instead_of_failing(caplog):
    with caplog.at_level("WARNING", logger="papersift.web"):
        assert translate("no_such_key_anywhere", "en") == "no_such_key_anywhere"
    assert "no_such_key_anywhere" in caplog.text
