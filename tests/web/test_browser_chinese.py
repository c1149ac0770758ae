"""Chinese queries in a real browser (Debian's chromium, headless): the reading shown and the
papers on page 1, over a slice of the shared corpus (issue 26).

The slice: the fixture corpus (every 17th paper of the shared corpus) plus the shared papers
that use each term's English words or are by the named author, so page 1 can be checked
against what the papers say. Screenshots go to artifacts/screenshots/ (zh-*.png).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import orjson
import pytest

from papersift.bench.zhterms import same_term
from papersift.index import lexical, termlexicon
from papersift.ingest.pipeline import ingest_paths
from papersift.server import create_app
from papersift.store import Store
from served_papers import SCREENSHOTS, TEST_HOSTS, built_once, serve_in_thread, template_root

pytestmark = [pytest.mark.browser, pytest.mark.shared]

# query -> (the reading shown for it, a pattern every paper of page 1's first five must match:
# the English term in its title or abstract, or the author among its authors)
CASES = {
    "反向传播": ("backpropagation", re.compile(r"back-?\s?propagat", re.I)),
    "贝叶斯优化": ("bayesian optimization", re.compile(r"bayesian optimi[sz]ation", re.I)),
    "集成学习": ("ensemble learning", re.compile(r"ensemble", re.I)),
    "卷積神經網路": ("convolutional neural networks", re.compile(r"convolutional (neural )?net", re.I)),
    "何恺明": ("Kaiming He", re.compile(r"Kaiming He")),
}
EVIDENCE = re.compile(r"back-?\s?propagat|bayesian optimi[sz]ation|ensemble learning|convolutional neural net", re.I)
PER_TERM = 60  # shared papers kept per pattern (besides the fixture corpus)


def slice_records(shared: Path, sample: list[dict]) -> list[dict]:
    records = {record["id"]: record for record in sample}
    kept: dict[str, int] = {}
    for name in ("papers.jsonl.gz", "papers_title_only.jsonl.gz"):
        _keep_matching(shared / "ml_papers" / name, records, kept)
    return list(records.values())


def _keep_matching(path: Path, records: dict[str, dict], kept: dict[str, int]) -> None:
    with gzip.open(path, "rb") as lines:
        for line in lines:
            record = orjson.loads(line)
            text = f"{record.get('title', '')} {record.get('abstract') or ''}"
            found = EVIDENCE.search(text)
            if "Kaiming He" in orjson.dumps(record.get("authors", [])).decode():
                key: str | None = "kaiming"
            else:
                key = found.group(0).lower()[:8] if found else None
            if key is not None and kept.get(key, 0) < PER_TERM:
                kept[key] = kept.get(key, 0) + 1
                records.setdefault(record["id"], record)


@pytest.fixture(scope="module")
def chinese_site(shared_data, sample_records, tmp_path_factory):
    def build(data_dir: Path) -> None:
        path = data_dir / "slice.jsonl"
        path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in slice_records(shared_data, sample_records)))
        summary = ingest_paths(Store(data_dir), [path])
        assert summary.rejected == 0
        path.unlink()
        lexical.build(data_dir)
        termlexicon.build_for_store(data_dir)

    data_dir = built_once(template_root() / "chinese-slice", build)
    with serve_in_thread(create_app(data_dir, allowed_hosts=TEST_HOSTS)) as base_url:
        yield base_url


@pytest.fixture()
def zh_page(browser, chinese_site):
    context = browser.new_context(base_url=chinese_site, locale="zh-CN", viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.mark.parametrize("query", list(CASES))
def test_a_chinese_query_shows_its_reading_and_relevant_papers_first(zh_page, query):
    reading, relevant = CASES[query]
    zh_page.goto("/")
    zh_page.fill("#q", query)
    zh_page.press("#q", "Enter")
    zh_page.wait_for_selector("article.hit")
    shot_name = f"zh-{list(CASES).index(query):02d}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    zh_page.screenshot(path=str(SCREENSHOTS / f"{shot_name}.png"))
    shown = zh_page.locator(".reading .reading-term").first
    assert same_term(shown.locator("strong").inner_text(), reading)  # in a form papers write it
    first = zh_page.locator("article.hit").all()[:5]
    assert len(first) == 5
    for hit in first:
        assert relevant.search(hit.inner_text()), hit.inner_text()[:300]


def test_a_name_beside_a_term_shows_the_author_filter_in_the_notice_and_only_their_papers(zh_page):
    # 何恺明 目标检测: the notice said "已按英文检索：object detection", the author only in the reading line
    zh_page.goto("/")
    zh_page.fill("#q", "何恺明 目标检测")
    zh_page.press("#q", "Enter")
    zh_page.wait_for_selector("article.hit")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    zh_page.screenshot(path=str(SCREENSHOTS / "zh-name-and-term.png"))
    notice = zh_page.locator("p.notice", has_text="已按英文检索").inner_text()
    assert 'author:"Kaiming He"' in notice and "detection" in notice, notice
    hits = zh_page.locator("article.hit").all()
    assert hits and all("Kaiming He" in hit.inner_text() for hit in hits)
