import orjson

from papersift.i18n import NOTICES_ZH, translate_notice
from papersift.search.notices import ENGLISH, Notice


def test_a_notice_is_its_english_text_and_keeps_its_values():
    notice = Notice("semantic_partial", coverage=0.4567, rows=20_480, total=44_693)
    assert notice == "semantic index covers 46% of papers (20,480 of 44,693); embedding is in progress"
    assert orjson.loads(orjson.dumps([notice])) == [str(notice)]  # JSON carries the English text
    assert notice.values["rows"] == 20_480


def test_every_notice_has_chinese_wording():
    assert set(NOTICES_ZH) == set(ENGLISH)
    assert translate_notice(Notice("mode_unavailable", mode="hybrid"), "zh") == "此服务器暂不支持混合检索，显示关键词检索结果"
    assert translate_notice(Notice("relaxed_match", total=1234), "en").startswith("no paper contains all the words")
    assert translate_notice("a plain message", "zh") == "a plain message"


def test_the_chinese_page_shows_notices_in_chinese(client):
    page = client.get("/", params={"q": "learning", "mode": "hybrid", "lang": "zh"}).text
    english = client.get("/", params={"q": "learning", "mode": "hybrid", "lang": "en"}).text
    assert "此服务器暂不支持混合检索" in page and "not available" not in page
    assert "hybrid search is not available on this server yet" in english  # the page's words (not "data dir")
