"""Every filter chip of the search page in both languages, every message key the templates
use, and error pages titled by their status."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

from papersift.api.params import FILTER_PARAMS
from papersift.i18n import LANGS, MESSAGES
from papersift.server import create_app
from served_papers import TEST_HOSTS

HTML = {"accept": "text/html"}
TEMPLATE_DIRS = [Path(__file__).resolve().parents[2] / "src" / "papersift" / folder / "templates"
                 for folder in ("web", "topics")]
# One value of each filter that the served papers hold (the hostile paper has them all).
FILTERS = [("venue", "ICLR"), ("area", "Deep Learning"), ("subarea", "Attention Mechanisms"),
           ("author", "Mallory <b>Evil</b>"), ("status", "Oral")]
CHIP_LABELS = {"venue": ("会议", "Venue"), "area": ("领域", "Area"), "subarea": ("子领域", "Subarea"),
               "author": ("作者", "Author"), "status": ("状态", "Status")}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("name", "value"), FILTERS)
def test_every_filter_chip_renders_in_both_languages(client, name, value, lang):
    response = client.get("/", params={name: value, "lang": lang}, headers=HTML)
    assert response.status_code == 200, response.text[:300]
    label = CHIP_LABELS[name][LANGS.index(lang)]
    chips = re.findall(r'<a class="chip" [^>]*>([^<]*)', response.text)
    escaped = value.replace("<", "&lt;").replace(">", "&gt;")
    assert f"{label}: {escaped} " in chips


@pytest.mark.parametrize("lang", LANGS)
def test_the_year_chip_and_all_filters_at_once_render(client, lang):
    params = dict(FILTERS) | {"year_from": "2020", "year_to": "2024", "lang": lang}
    response = client.get("/", params=params, headers=HTML)
    assert response.status_code == 200 and response.text.count('class="chip"') == len(FILTERS) + 1


def test_every_message_key_the_templates_use_is_in_the_catalog():
    used = set()
    for folder in TEMPLATE_DIRS:
        for template in folder.glob("*.html"):
            used |= set(re.findall(r"""\bt\(\s*['"]([a-z0-9_]+)['"]\s*[,)]""", template.read_text()))
    # Keys built from a prefix in the templates: t('facet_' ~ name), t('mode_' ~ mode), t('sort_' ~ sort).
    used |= {f"facet_{name}" for name in (*FILTER_PARAMS, "year")}
    used |= {f"mode_{mode}" for mode in ("hybrid", "keyword", "semantic")}
    used |= {f"sort_{order}" for order in ("relevance", "newest", "oldest")}
    assert used <= set(MESSAGES), sorted(used - set(MESSAGES))


@pytest.fixture(scope="module")
def failing_client(served_data_dir):
    broken = APIRouter()

    @broken.get("/broken")
    def fail_on_purpose():
        raise RuntimeError("a bug, with a path: /srv/secret/data")

    with TestClient(create_app(served_data_dir, routers=[broken], allowed_hosts=TEST_HOSTS),
                    raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.mark.parametrize(("url", "status", "titles"), [
    ("/?page=abc", 422, ("参数有误", "Invalid parameter")),
    ('/?q="open', 400, ("请求有误", "Bad request")),
    ("/paper/NOPE", 404, ("找不到页面", "Not found")),
    ("/no/such/page", 404, ("找不到页面", "Not found")),
    ("/broken", 500, ("服务器出错", "Server error")),
])
@pytest.mark.parametrize("lang", LANGS)
def test_error_pages_are_titled_by_their_status(failing_client, url, status, titles, lang):
    separator = "&" if "?" in url else "?"
    response = failing_client.get(f"{url}{separator}lang={lang}", headers=HTML)
    title = titles[LANGS.index(lang)]
    assert response.status_code == status
    assert f"<title>{title} – " in response.text and f"<h1>{title} ({status})</h1>" in response.text
    assert "/srv/secret" not in response.text and "Traceback" not in response.text
