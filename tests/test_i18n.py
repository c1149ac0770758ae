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


def test_no_page_string_tells_the_reader_to_run_a_command():
    """Issue 28 item 6: pages said "until 'papersift embed' finishes", "run 'papersift topics map'",
    "或用 `papersift library ...`", "--enable-writes": the reader is told what to expect instead."""
    from papersift.i18n import ERRORS_EN_PAGE, ERRORS_ZH, NOTICES_EN_PAGE, NOTICES_ZH
    from papersift.search.notices import ENGLISH
    from papersift.web import library_view, people_pages, saved_pages, topics_pages, writer_pages

    page_strings = [text for key, texts in MESSAGES.items() if not key.startswith("digest_")  # mail, not pages
                    for text in texts.values()]
    page_strings += [*NOTICES_ZH.values(), *NOTICES_EN_PAGE.values(), *ERRORS_ZH.values(), *ERRORS_EN_PAGE.values()]
    page_strings += [ENGLISH[code] for code in ENGLISH if code not in NOTICES_EN_PAGE]  # what en pages show as is
    for module in (library_view, people_pages, saved_pages, topics_pages, writer_pages):
        page_strings += [text for labels in module.LABELS.values() for text in labels.values()]
    assert page_strings
    jargon = [text for text in page_strings if "papersift " in text or "papersift]" in text or " --" in text
              or "`" in text]
    assert jargon == []


def test_page_notices_speak_of_what_to_expect_in_both_languages():
    from papersift.i18n import translate_notice
    from papersift.search.notices import Notice

    first_pass = Notice("first_pass", share=0.54)
    assert "papersift" in str(first_pass)  # the CLI's sentence names the command
    for lang in LANGS:
        text = translate_notice(first_pass, lang)
        assert "papersift" not in text and "54" not in text  # nor a figure that changes while one reads


def test_pages_take_their_words_from_the_catalog():
    """One translation mechanism (issue #30): no page module keeps a dict of words per language,
    no template holds a Chinese word or switches an English one on the language."""
    import re
    from pathlib import Path

    import papersift.web

    web = Path(papersift.web.__file__).parent
    per_language_dicts = [path.name for path in web.glob("*.py") if re.search(r"[\"'](zh|en)[\"']: [\"']", path.read_text())]
    templates = list((web / "templates").glob("*.html"))
    assert templates
    inline = [path.name for path in templates
              if re.search(r"[\u4e00-\u9fff]|'[^']+' if lang == 'en' else", path.read_text())]
    assert per_language_dicts == [] and inline == []


def test_page_labels_are_a_pages_messages_by_name():
    from papersift.i18n import in_every_lang, page_labels

    labels = page_labels("saved")
    assert labels["zh"]["save"] == MESSAGES["saved.save"]["zh"] and labels["en"]["save"] == MESSAGES["saved.save"]["en"]
    assert set(labels["zh"]) == set(labels["en"]) and "saved.save" not in labels["en"]
    assert in_every_lang("saved.saved") == {"zh": "已保存的检索", "en": "Saved searches"}
