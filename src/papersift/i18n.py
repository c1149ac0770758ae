"""Interface languages (zh, en): the message catalog and how a request picks its language."""

from __future__ import annotations

import logging
from typing import Literal

log = logging.getLogger("papersift.web")

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")
DEFAULT_LANG: Lang = "zh"

MESSAGES: dict[str, dict[Lang, str]] = {
    # digests (follow/digest.py)
    "digest_subject": {"zh": "论文检索：{count} 篇新论文（{names}）", "en": "Paper Search: {count} new papers ({names})"},
    "digest_heading": {"zh": "自上次摘要以来的新论文", "en": "New since your last digest"},
    "digest_saved": {"zh": "已保存的检索：{name}", "en": "Saved search: {name}"},
    "digest_tag": {"zh": "标签推荐：{name}", "en": "Recommended for tag: {name}"},
    "digest_new_count": {"zh": "{count} 篇新论文", "en": "{count} new"},
    "digest_footer": {"zh": "由 papersift digest 发送。在 {url} 管理已保存的检索。",
                      "en": "Sent by papersift digest. Manage your saved searches at {url}."},
    "site_title": {"zh": "论文检索", "en": "Paper Search"},
    "search": {"zh": "检索", "en": "Search"},
    "query_placeholder": {"zh": "输入关键词、短语或 author:、venue:、year:2020..2024 …",
                          "en": "Words, \"phrases\", author:, venue:, year:2020..2024 …"},
    "mode": {"zh": "模式", "en": "Mode"},
    "mode_hybrid": {"zh": "混合", "en": "Hybrid"},
    "mode_keyword": {"zh": "关键词", "en": "Keyword"},
    "mode_semantic": {"zh": "语义", "en": "Semantic"},
    "sort": {"zh": "排序", "en": "Sort"},
    "sort_relevance": {"zh": "相关度", "en": "Relevance"},
    "sort_newest": {"zh": "最新", "en": "Newest"},
    "sort_oldest": {"zh": "最早", "en": "Oldest"},
    "results_count": {"zh": "共 {total} 篇论文", "en": "{total} papers"},
    # semantic and hybrid: the total is a ranked list's length, not a count of matching papers
    "results_ranked": {"zh": "按相关度排出 {total} 篇", "en": "{total} ranked by relevance"},
    "results_ranked_of": {"zh": "按相关度排出 {total} 篇（含全部检索词的论文共 {matches} 篇）",
                          "en": "{total} ranked by relevance ({matches} papers have all the words)"},
    "results_took": {"zh": "用时 {ms} 毫秒", "en": "{ms} ms"},
    "no_results": {"zh": "没有找到论文。", "en": "No papers found."},
    "reading": {"zh": "英文检索词", "en": "Searched in English"},
    "reading_other": {"zh": "改用", "en": "or"},
    "reading_not_read": {"zh": "（未能翻译）", "en": "(not translated)"},
    "search_literally": {"zh": "按原文检索（不翻译）", "en": "Search the words as typed"},
    "et_al": {"zh": "等", "en": "et al."},
    "more_authors": {"zh": "另 {count} 位作者", "en": "{count} more authors"},
    "abstract_expand": {"zh": "展开摘要", "en": "Show full abstract"},
    "no_abstract": {"zh": "（无摘要）", "en": "(no abstract)"},
    "similar": {"zh": "相似论文", "en": "Similar papers"},
    "similar_to": {"zh": "与此论文相似", "en": "Similar to"},
    "copy_bibtex": {"zh": "复制 BibTeX", "en": "Copy BibTeX"},
    "copied": {"zh": "已复制", "en": "Copied"},
    "copy_failed": {"zh": "复制失败，已打开 BibTeX", "en": "Copy failed; opened the BibTeX"},
    "pdf": {"zh": "PDF", "en": "PDF"},
    "source_page": {"zh": "原文页面", "en": "Paper page"},
    "predicted": {"zh": "预测", "en": "predicted"},
    "predicted_title": {"zh": "主题由分类器预测", "en": "Topic predicted by the classifier"},
    "filters": {"zh": "筛选", "en": "Filters"},
    "facet_venue": {"zh": "会议", "en": "Venue"},
    "facet_year": {"zh": "年份", "en": "Year"},
    "facet_area": {"zh": "领域", "en": "Area"},
    "facet_subarea": {"zh": "子领域", "en": "Subarea"},
    "facet_status": {"zh": "状态", "en": "Status"},
    "facet_author": {"zh": "作者", "en": "Author"},
    "facet_institution": {"zh": "机构", "en": "Institution"},
    "facet_code": {"zh": "代码", "en": "Code"},
    "facet_has_code": {"zh": "代码", "en": "Code"},
    "has_code": {"zh": "有代码", "en": "Has code"},
    "year_from": {"zh": "起", "en": "From"},
    "year_to": {"zh": "止", "en": "To"},
    "apply": {"zh": "应用", "en": "Apply"},
    "active_filters": {"zh": "当前筛选", "en": "Active filters"},
    "remove_filter": {"zh": "移除筛选", "en": "Remove filter"},
    "clear_all": {"zh": "清除全部", "en": "Clear all"},
    "prev_page": {"zh": "上一页", "en": "Previous"},
    "next_page": {"zh": "下一页", "en": "Next"},
    "page_n": {"zh": "第 {page} 页", "en": "Page {page}"},
    "pagination": {"zh": "分页", "en": "Pagination"},
    "topics": {"zh": "主题浏览", "en": "Topics"},
    "topics_intro": {"zh": "按领域与子领域浏览论文，点击即可列出。",
                     "en": "Browse papers by area and subarea; click one to list its papers."},
    "unlabeled": {"zh": "未标注主题", "en": "No topic yet"},
    "api_docs": {"zh": "API 文档", "en": "API docs"},
    "language": {"zh": "语言", "en": "Language"},
    "switch_lang": {"zh": "English", "en": "中文"},
    "error_title": {"zh": "请求有误", "en": "Bad request"},
    "error_title_404": {"zh": "找不到页面", "en": "Not found"},
    "error_title_405": {"zh": "不支持此请求方法", "en": "Method not allowed"},
    "error_title_408": {"zh": "请求超时", "en": "Request timeout"},
    "error_title_409": {"zh": "尚未就绪", "en": "Not ready yet"},
    "error_title_413": {"zh": "请求过大", "en": "Request too large"},
    "error_title_414": {"zh": "网址过长", "en": "URL too long"},
    "error_title_422": {"zh": "参数有误", "en": "Invalid parameter"},
    "error_title_500": {"zh": "服务器出错", "en": "Server error"},
    "error_title_503": {"zh": "暂时无法服务", "en": "Service unavailable"},
    "not_found": {"zh": "找不到这篇论文。", "en": "No such paper."},
    "back_to_search": {"zh": "返回检索", "en": "Back to search"},
    "authors": {"zh": "作者", "en": "Authors"},
    "abstract": {"zh": "摘要", "en": "Abstract"},
    "keywords": {"zh": "关键词", "en": "Keywords"},
    "tldr": {"zh": "一句话总结", "en": "TL;DR"},
    "bibtex": {"zh": "BibTeX", "en": "BibTeX"},
    "export": {"zh": "导出结果", "en": "Export results"},
    "skip_to_results": {"zh": "跳到结果", "en": "Skip to results"},
    "results": {"zh": "检索结果", "en": "Results"},
    "show_more": {"zh": "更多…", "en": "More…"},
    # A hit's library controls (web/library_forms.py)
    "marks_now": {"zh": "你的标记", "en": "Your marks"},
    "marks_token": {"zh": "写入令牌", "en": "Write token"},
    "marks_apply": {"zh": "添加输入的标签", "en": "Add the tags typed"},
    "marks_keys": {"zh": "按键：j / k 选择论文，t 加标签，l 喜欢，n 不感兴趣",
                   "en": "Keys: j / k select a paper, t tag it, l like, n not interested"},
    "marks_saved": {"zh": "已保存到文献库", "en": "Saved to your library"},
    "mark_tag": {"zh": "标签", "en": "tag"},
    "mark_tag_for": {"zh": "给《{title}》加标签", "en": "Tag for “{title}”"},
    "mark_add_tag": {"zh": "加标签", "en": "Add tag"},
    "mark_like": {"zh": "喜欢", "en": "Like"},
    "mark_dislike": {"zh": "不感兴趣", "en": "Not interested"},
    "mark_liked": {"zh": "喜欢", "en": "liked"},
    "mark_disliked": {"zh": "不感兴趣", "en": "not interested"},
}


# A search notice in the reader's language, by its code (search/notices.py has the English).
NOTICES_ZH: dict[str, str] = {
    "page_size_capped": "每页最多显示 {limit} 篇",
    "page_capped": "最多只能翻到第 {limit} 页",
    "common_words_only": "检索词都是常用词，未参与检索",
    "relaxed_match": "没有论文包含全部检索词；显示与部分检索词最匹配的 {total:,} 篇论文",
    "carried_over": "没有论文包含这些中文词；已按英文检索：{english}（{total:,} 篇论文）",
    "mode_unavailable": "此数据目录暂不支持{mode_name}检索，显示关键词检索结果",
    "semantic_not_built": "语义索引尚未建立（请运行 papersift embed），结果仅为关键词匹配",
    "semantic_partial": "语义索引已覆盖 {coverage:.0%} 的论文（{rows:,} / {total:,}），向量计算仍在进行",
    "first_pass": "{share:.0%} 的论文暂按快速初筛向量排序，完整模型仍在计算（papersift embed）",
    "similar_by_words": "按共同词语查找相似论文：语义索引暂时无法回答",
    "query_shortened": "语义检索只读取查询的前 {limit} 个字符（关键词仍全部检索）",
    "unknown_tag": "你的文献库中没有标签为“{tag}”的论文（tag: 只检索你加过标签的论文）",
}


def translate_notice(notice: str, lang: Lang) -> str:
    """A Notice in `lang`; plain strings and codes without a translation stay as they are."""
    code = getattr(notice, "code", None)
    if lang != "zh" or code not in NOTICES_ZH:
        return str(notice)
    values = dict(getattr(notice, "values", {}))  # a code in NOTICES_ZH: a search.notices.Notice
    if "mode" in values:
        values["mode_name"] = MESSAGES.get(f"mode_{values['mode']}", {}).get("zh", values["mode"])
    return NOTICES_ZH[code].format(**values)


def translate(key: str, lang: Lang, **values) -> str:
    """The message in `lang`; a key missing from the catalog shows as the other language or
    the key itself (and is logged) instead of failing the whole page."""
    entry = MESSAGES.get(key)
    if entry is None or lang not in entry:
        log.warning("no %s translation for message key %r", lang, key)
        text = next(iter(entry.values())) if entry else key
    else:
        text = entry[lang]
    return text.format(**values) if values else text


def error_title_key(status: int) -> str:
    """The error page's title for this status: its own when the catalog has one."""
    key = f"error_title_{status}"
    return key if key in MESSAGES else ("error_title_500" if status >= 500 else "error_title")


def negotiate_language(accept_language: str | None) -> Lang:
    """Pick zh or en from an Accept-Language header by q-value; zh when nothing matches."""
    best: tuple[float, Lang] | None = None
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGS and quality > 0:
            # Earlier entries win ties, as browsers list them in preference order.
            candidate = (quality - position * 1e-6, primary)
            if best is None or candidate[0] > best[0]:
                best = candidate
    return best[1] if best else DEFAULT_LANG
