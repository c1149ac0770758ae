"""The page as HTML, without a browser: language, escaping, paging, facets, no-JS forms."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi import APIRouter, Request
from fastapi.testclient import TestClient

from papersift.search.service import SearchService
from papersift.search.types import Filters, SearchRequest
from papersift.server import create_app
from papersift.web.render import highlighted, safe_href
from served_papers import HOSTILE_ID, MANY_AUTHORS_ID, TEST_HOSTS

HTML = {"Accept": "text/html"}


class Elements(HTMLParser):
    """Start tags with their attributes, and the text, of a page."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def links(self, css_class: str | None = None) -> list[str]:
        return [attrs["href"] for tag, attrs in self.tags if tag == "a" and "href" in attrs
                and (css_class is None or css_class in attrs.get("class", "").split())]

    def with_class(self, css_class: str) -> list[dict]:
        return [attrs for _, attrs in self.tags if css_class in (attrs.get("class") or "").split()]


def page(client, url, **headers) -> tuple[int, str, Elements]:
    response = client.get(url, headers={**HTML, **headers})
    return response.status_code, response.text, Elements(response.text)


@pytest.mark.parametrize(("accept_language", "title"), [
    ("zh-CN,zh;q=0.9", "论文检索"), ("en-US,en;q=0.9", "Paper Search"), (None, "论文检索"),
])
def test_language_comes_from_the_browser(client, accept_language, title):
    headers = {"Accept-Language": accept_language} if accept_language else {}
    status, html, _ = page(client, "/", **headers)
    assert status == 200 and f"<title>{title}</title>" in html


def test_lang_in_the_url_wins_and_every_link_keeps_it(client):
    status, html, elements = page(client, "/?q=learning&mode=keyword&lang=en", **{"Accept-Language": "zh-CN"})
    assert status == 200 and "<title>learning – Paper Search</title>" in html and '<html lang="en">' in html
    internal = [href for href in elements.links() if href.startswith("/") and not href.startswith(("/docs", "/api"))]
    assert internal and all("lang=" in href for href in internal)
    switch = elements.links("lang-switch")[0]
    assert parse_qs(urlsplit(switch).query) == {"q": ["learning"], "mode": ["keyword"], "lang": ["zh"]}


def test_results_page_shows_20_hits_like_the_service(client, served_data_dir):
    status, _, elements = page(client, "/?q=learning&mode=keyword&lang=zh")
    expected = SearchService(served_data_dir).search(SearchRequest(query="learning", mode="keyword"))
    assert status == 200 and len(elements.with_class("hit")) == 20
    paper_links = [href for href in elements.links() if href.startswith("/paper/") and not href.split("?")[0].endswith("/similar")]
    assert [href.split("?")[0].removeprefix("/paper/") for href in paper_links] == [hit.paper.id for hit in expected.hits]
    assert f"共 {expected.total:,} 篇论文" in "".join(elements.text)


def test_pagination_links_to_the_next_page(client):
    _, _, elements = page(client, "/?q=learning&mode=keyword&lang=zh")
    next_link = next(attrs["href"] for tag, attrs in elements.tags if tag == "a" and attrs.get("rel") == "next")
    assert parse_qs(urlsplit(next_link).query)["page"] == ["2"]
    status, _, second = page(client, next_link)
    assert status == 200 and [a for t, a in second.tags if t == "span" and a.get("aria-current") == "page"]


def test_facet_links_narrow_the_search(client):
    _, _, elements = page(client, "/?q=learning&mode=keyword&lang=en")
    venue_links = [href for href in elements.links("facet-link") if "venue=" in href]
    assert venue_links
    narrowed = parse_qs(urlsplit(venue_links[0]).query)
    assert narrowed["q"] == ["learning"] and len(narrowed["venue"]) == 1 and "page" not in narrowed


def test_hostile_paper_text_is_escaped_everywhere(client):
    pages = {url: page(client, url) for url in ("/?q=bold+attention+claims&mode=keyword", f"/paper/{HOSTILE_ID}",
                                                f"/paper/{HOSTILE_ID}/similar")}
    for status, html, elements in pages.values():
        assert status == 200
        assert "<img src=x" not in html and "<script>alert" not in html and "<b>Evil" not in html
        assert "javascript:" not in " ".join(elements.links())
    for url in ("/?q=bold+attention+claims&mode=keyword", f"/paper/{HOSTILE_ID}"):  # the pages that show its title
        html = pages[url][1]
        assert "&lt;img src=x onerror=alert(1)&gt;" in html or "&lt;img src=<mark>x</mark>" in html


def test_search_form_works_without_javascript(client):
    _, html, elements = page(client, "/?q=learning&mode=keyword&venue=ICLR&lang=zh")
    forms = [attrs for tag, attrs in elements.tags if tag == "form" and attrs.get("role") == "search"]
    assert forms == [{"class": "search-form", "role": "search", "action": "/", "method": "get"}]
    hidden = [(attrs["name"], attrs["value"]) for tag, attrs in elements.tags if tag == "input" and attrs.get("type") == "hidden"]
    assert ("venue", "ICLR") in hidden and ("lang", "zh") in hidden
    assert re.search(r'<input type="radio" name="mode" value="keyword" checked>', html)


def test_first_ten_authors_then_deng_expandable(client):
    _, html, _elements = page(client, "/?q=fifteen+collaborators&mode=keyword&lang=zh")
    shown = re.sub(r"<[^>]+>", "", re.search(r'<span class="shown">(.*?)</span>', html).group(1))
    assert shown == ", ".join(f"Author Number{n}" for n in range(1, 11))
    assert "<summary" in html and ">等</summary>" in html and "Author Number15" in html


def test_topics_page_lists_areas_and_subareas_with_links(client):
    status, html, elements = page(client, "/topics?lang=zh")
    links = [parse_qs(urlsplit(href).query) for href in elements.links() if href.startswith("/?")]
    assert status == 200 and "主题浏览" in html
    assert any(link.get("area") == ["Deep Learning"] and link.get("subarea") == ["Attention Mechanisms"] for link in links)


def test_bad_input_renders_an_html_error_page(client):
    status, html, _ = page(client, "/?page=abc&lang=en")
    assert status == 422 and "Invalid parameter" in html and "page" in html and "abc" in html
    status, html, _ = page(client, "/?q=%22open&lang=zh")
    assert status == 400 and "检索式有语法错误：请检查引号和括号是否成对。" in html  # in the page's language
    status, html, _ = page(client, "/?q=%22open&lang=en")
    assert status == 400 and "quote" in html
    status, html, _ = page(client, "/paper/NOPE?lang=en")
    assert status == 404 and "No such paper." in html


def test_paper_page_has_bibtex_and_links(client):
    status, html, elements = page(client, f"/paper/{MANY_AUTHORS_ID}?lang=en")
    assert status == 200 and "@inproceedings{number12023scaling," in html
    assert "https://example.org/many.pdf" in elements.links()
    assert f"/paper/{MANY_AUTHORS_ID}/similar?lang=en" in elements.links()


def test_highlight_snippets_pass_only_when_they_hold_nothing_but_marks():
    assert str(highlighted("a <mark>b</mark> &amp; c", "a b & c")) == "a <mark>b</mark> &amp; c"
    assert str(highlighted("a <b>b</b>", "a <b>b</b>")) == "a &lt;b&gt;b&lt;/b&gt;"
    assert str(highlighted(None, "<i>x</i>")) == "&lt;i&gt;x&lt;/i&gt;"
    assert str(highlighted("<mark onclick=x>b</mark>", "b")) == "b"


@pytest.mark.parametrize(("url", "kept"), [
    ("https://openreview.net/pdf?id=1", True), ("http://x.org/a.pdf", True),
    ("javascript:alert(1)", False), ("JaVaScRiPt:alert(1)", False), ("data:text/html,x", False), ("", False), (None, False),
])
def test_only_http_links_come_from_paper_data(url, kept):
    assert (safe_href(url) is not None and safe_href(url) == url) is kept


class PredictedTopics:
    """The real service, with every hit's topic marked as predicted by the classifier."""

    def __init__(self, service):
        self.service = service

    def search(self, request):
        from dataclasses import replace

        response = self.service.search(request)
        return replace(response, hits=[replace(hit, topic_predicted=True) for hit in response.hits])

    def __getattr__(self, name):
        return getattr(self.service, name)


def test_predicted_topics_get_a_predicted_badge(served_data_dir):
    app = create_app(served_data_dir, service=PredictedTopics(SearchService(served_data_dir)), allowed_hosts=TEST_HOSTS)
    with TestClient(app) as predicted_client:
        _, html, elements = page(predicted_client, "/?q=attention&mode=keyword&area=Deep+Learning&lang=en")
    badges = elements.with_class("predicted")
    assert badges and len(badges) == len(elements.with_class("topic"))
    assert '<span class="badge predicted" title="Topic predicted by the classifier">predicted</span>' in html


def test_a_filtered_facet_still_offers_its_other_values_with_their_own_counts(client, served_data_dir):
    service = SearchService(served_data_dir)
    _, html, elements = page(client, "/?q=learning&mode=keyword&venue=ICLR&lang=en")
    offered = re.findall(r'<section class="facet" data-facet="venue">(.*?)</section>', html, re.S)[0]
    counts = {name: int(count.replace(",", "")) for name, count in
              re.findall(r'<span class="facet-name">([^<]+)</span> <span class="count">([\d,]+)</span>', offered)}
    assert len(counts) > 1 and "ICLR" in counts
    for venue, count in counts.items():
        alone = service.search(SearchRequest(query="learning", mode="keyword", filters=Filters(venues=(venue,)), size=1))
        assert alone.total == count
    colt_link = next(href for href in elements.links("facet-link") if "venue=COLT" in href)
    assert parse_qs(urlsplit(colt_link).query)["venue"] == ["ICLR", "COLT"]


def test_another_package_can_add_a_page_in_the_same_look(served_data_dir, tmp_path, monkeypatch):
    from papersift.web import render as web_routes

    monkeypatch.setattr(web_routes, "NAV_LINKS", list(web_routes.NAV_LINKS))
    monkeypatch.setattr(web_routes.template_loader, "loaders", list(web_routes.template_loader.loaders))
    (tmp_path / "topic_map.html").write_text('{% extends "base.html" %}{% block main %}<p id="map">{{ note }}</p>{% endblock %}')
    web_routes.add_page("/topic-map", {"zh": "主题地图", "en": "Topic map"}, template_dir=tmp_path)
    extra = APIRouter()

    @extra.get("/topic-map")
    def topic_map(request: Request):
        return web_routes.render(request, "topic_map.html", "zh", note="<b>34K points</b>")

    with TestClient(create_app(served_data_dir, routers=[extra], allowed_hosts=TEST_HOSTS)) as extended:
        html = extended.get("/topic-map").text
        search_html = extended.get("/?lang=en").text
    assert '<p id="map">&lt;b&gt;34K points&lt;/b&gt;</p>' in html and "<title>论文检索</title>" in html
    assert '<a href="/topic-map?lang=zh" aria-current="page">主题地图</a>' in html
    assert '<a href="/topic-map?lang=en">Topic map</a>' in search_html


def test_a_chinese_query_shows_its_english_reading_with_choices_and_a_literal_search(client, served_data_dir):
    status, _, elements = page(client, "/?q=图神经网络&mode=keyword&lang=zh")
    expected = SearchService(served_data_dir).search(SearchRequest(query="图神经网络", mode="keyword"))
    term = expected.reading.terms[0]
    assert status == 200 and term.english == "graph neural networks"
    text = " ".join("".join(elements.text).split())
    hedge = "" if term.shown_sure else "可能是 "  # a guess is said to be one
    assert "英文检索词" in text and f"图神经网络 → {hedge}{term.english}" in text
    literal = elements.links("reading-literal")
    assert len(literal) == 1 and parse_qs(urlsplit(literal[0]).query)["literal"] == ["true"]
    choices = [href for href in elements.links() if "q=" in href and "literal" not in href
               and parse_qs(urlsplit(href).query)["q"][0] in term.alternatives]
    assert len(choices) == len(term.alternatives) > 0  # one link per other reading, searching it instead
    status, _, elements = page(client, literal[0])
    assert status == 200 and not elements.with_class("reading") and not elements.with_class("hit")


@pytest.mark.parametrize(("lang", "also"), [("zh", "另按：back-propagation"), ("en", "also as: back-propagation")])
def test_the_notice_names_every_phrase_a_chinese_term_was_searched_as(client, lang, also):
    # 反向传播 reads "backpropagation"; papers also write "back-propagation", searched too (issue 26)
    _, _, elements = page(client, f"/?q=反向传播&mode=keyword&lang={lang}")
    notices = " ".join(" ".join(elements.text).split())
    assert also in notices


def test_a_notice_naming_what_was_searched_is_escaped(client, monkeypatch):
    from papersift.search.notices import Notice

    service = client.app.state.service
    searched = service.search

    def search(request):
        response = searched(request)
        response.notices.append(Notice("carried_over_also", english="<b>x</b>", also="<script>alert(1)</script>",
                                       total=1, reading=None))
        return response
    monkeypatch.setattr(service, "search", search)
    for lang in ("zh", "en"):
        _, html, _ = page(client, f"/?q=graph&mode=keyword&lang={lang}")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html and "<b>x" not in html


def test_an_english_query_shows_no_reading(client):
    _, _, elements = page(client, "/?q=graph+neural+networks&mode=keyword")
    assert not elements.with_class("reading")


def test_the_zh_page_names_areas_and_subareas_in_chinese_with_the_label_as_title(client):
    from papersift.web.topic_names import ZH_TOPIC_NAMES

    _, zh, _ = page(client, "/?q=attention&mode=keyword&area=Deep+Learning&lang=zh")
    assert '<div class="topic" title="Deep Learning · Attention Mechanisms">深度学习 · 注意力机制' in zh or \
        re.search(r'<div class="topic" title="Deep Learning · [^"]+">深度学习 · ', zh)
    area = re.search(r'<section class="facet" data-facet="area">(.*?)</section>', zh, re.S).group(1)
    assert '<span class="facet-name" title="Deep Learning">深度学习</span>' in area
    _, en, _ = page(client, "/?q=attention&mode=keyword&area=Deep+Learning&lang=en")
    assert re.search(r'<div class="topic" title="Deep Learning · [^"]+">Deep Learning · ', en)
    assert len(ZH_TOPIC_NAMES) == len(set(ZH_TOPIC_NAMES.values()))  # no two labels share a name


def test_a_guessed_reading_is_shown_as_maybe_and_a_name_as_an_author(client):
    # a one-term reading the API calls unsure: the page hedges it. Which everyday term reads as a
    # guess moves when the glossary is rebuilt from more sources (弱监督学习 was 0.65 from one
    # source, then 0.8 from two: sure), so the first of a few that reads as one guessed term is asked
    from urllib.parse import quote

    guessed = []
    for term in ("弱监督学习", "多任务学习", "表示学习", "度量学习"):
        reading = client.get("/api/search", params={"q": term, "mode": "keyword"}).json()["reading"]
        if reading and len(reading["terms"]) == 1 and not reading["terms"][0]["sure"]:
            guessed.append((term, reading["terms"][0]["english"]))
    assert guessed, "every term reads as sure now: pick others"
    term, english = guessed[0]
    _, zh, _ = page(client, f"/?q={quote(term)}&mode=keyword&lang=zh")
    assert re.search(rf'class="reading-term reading-maybe"><span lang="zh">{term}</span> → '
                     rf'<span class="reading-hedge">可能是</span> <strong lang="en">{re.escape(english)}</strong>', zh)
    _, named, _ = page(client, "/?q=%E6%9C%B1%E5%86%9B&mode=keyword&lang=en")  # 朱军
    assert re.search(r'<span lang="zh">朱军</span> → <span class="reading-hedge">author</span> '
                     r'<strong lang="en">Jun Zhu</strong>', named)


def test_chinese_glosses_of_matched_terms_are_a_setting_off_by_default(client):
    from papersift.search.glossary import lookup_en

    assert lookup_en("neural networks")  # the vendored glossary knows the term searched below
    _, plain, _ = page(client, "/?q=neural+networks&mode=keyword&lang=zh")
    assert 'class="glosses"' not in plain and "显示匹配术语的中文释义" in plain
    _, glossed, _ = page(client, "/?q=neural+networks&mode=keyword&lang=zh&gloss=true")
    assert re.search(r'<span class="gloss"><span lang="en">neural networks</span> <span lang="zh">[^<]+</span>', glossed)
    assert "隐藏术语释义" in glossed
    _, english, _ = page(client, "/?q=neural+networks&mode=keyword&lang=en&gloss=true")
    assert 'class="glosses"' not in english  # for a Chinese reader: the zh page only
