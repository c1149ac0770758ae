"""What every library page draws with: its labels (zh, en) and render() with the library's
state and labels. The library pages (web/library_pages.py) and the library's forms
(web/library_forms.py: the import summary) both use it; neither imports the other for it."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from papersift.api.params import SearchParams
from papersift.i18n import Lang
from papersift.web.render import render
from papersift.web.urls import SearchState

LABELS = {
    "en": {"library": "Library", "tags": "Tags", "all": "All papers", "empty": "Your library is empty: tag, like or "
           "mark papers on the search results, or import a file.", "liked": "liked",
           "not_interested": "not interested", "to-read": "to read", "read": "read", "note": "Note", "added": "added",
           "export": "Export", "recommend": "Recommendations", "recommend_for": "Recommended for tag",
           "recommend_all": "Recommended from your library",
           "papers": "papers", "mark_seen": "Mark all as seen", "new": "new",
           "private_feed": "Private Atom feed", "only_new": "Only new papers", "all_recs": "All recommendations",
           "import": "Import", "import_file": "File (BibTeX, RIS, CSL-JSON, or JSON exported here)",
           "import_tag": "Also tag them", "reading": "Reading state", "none": "none", "save": "Save",
           "remove": "Remove from library", "filters": "Filters", "apply": "Apply", "venue": "Venue",
           "area": "Area", "year_from": "From year", "year_to": "To year",
           "import_summary": "{matched} of {entries} entries matched ({format}).",
           "import_unmatched": "{count} entries matched no paper:", "import_all_matched": "Every entry matched a paper."},
    "zh": {"library": "文献库", "tags": "标签", "all": "全部论文", "empty": "文献库为空：在检索结果上给论文加标签或标记，"
           "或导入文件。", "liked": "喜欢", "not_interested": "不感兴趣",
           "to-read": "待读", "read": "已读", "note": "笔记", "added": "加入于", "export": "导出",
           "recommend": "推荐", "recommend_for": "标签推荐", "recommend_all": "根据文献库推荐",
           "papers": "篇论文", "mark_seen": "全部标为已看", "new": "新",
           "private_feed": "私人 Atom 订阅", "only_new": "只看新论文", "all_recs": "全部推荐",
           "import": "导入", "import_file": "文件（BibTeX、RIS、CSL-JSON，或从本站导出的 JSON）", "import_tag": "同时加标签",
           "reading": "阅读状态", "none": "无", "save": "保存", "remove": "移出文献库", "filters": "筛选",
           "apply": "应用", "venue": "会议", "area": "领域", "year_from": "起始年份", "year_to": "截止年份",
           "import_summary": "{entries} 条中匹配了 {matched} 条（{format}）。", "import_unmatched": "{count} 条没有匹配到论文：",
           "import_all_matched": "每一条都匹配到了论文。"},
}


def render_library(request: Request, template: str, lang: Lang, **context) -> HTMLResponse:
    return render(request, template, lang, state=SearchState(SearchParams(), lang), labels=LABELS[lang], **context)

