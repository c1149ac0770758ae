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
    "results_ranked": {"zh": "{total} 篇语义相近的论文", "en": "{total} papers close in meaning"},
    "results_ranked_of": {"zh": "共 {total} 篇论文：{matches} 篇含全部检索词，其余语义相近",
                          "en": "{total} papers: {matches} with all the words, the rest close in meaning"},
    "results_took": {"zh": "用时 {ms} 毫秒", "en": "{ms} ms"},
    "no_results": {"zh": "没有找到论文。", "en": "No papers found."},
    "no_results_hint": {"zh": "可以换用其他或更少的检索词、换一种检索方式，或减少筛选条件。",
                        "en": "Try other or fewer words, another search mode, or fewer filters."},
    "showing_results_for": {"zh": "已显示以下检索词的结果：", "en": "Showing results for"},
    "search_instead_for": {"zh": "仍按原词检索：", "en": "search instead for"},
    "intent_author": {"zh": "作者", "en": "Author"},
    "intent_person_papers": {"zh": "下面是此人的 {papers} 篇论文", "en": "their {papers} papers are listed below"},
    "intent_search_words": {"zh": "按词语检索", "en": "search the words instead"},
    # a name several people share (search/intent.py Person.namesakes): each listed with a hint
    "intent_namesakes": {"zh": "同名的其他作者", "en": "Other people with this name"},
    "intent_namesake_papers": {"zh": "{papers} 篇论文", "en": "{papers} papers"},
    "intent_more_namesakes": {"zh": "另有 {count} 位同名作者", "en": "{count} more with this name"},
    "intent_with_coauthor": {"zh": "常与 {name} 合作", "en": "with {name}"},
    "intent_filters": {"zh": "从检索词读出的筛选条件", "en": "Filters read from your words"},
    "intent_filter_word": {"zh": "筛选", "en": "filter"},
    "reading": {"zh": "英文检索词", "en": "Searched in English"},
    "reading_other": {"zh": "改用", "en": "or"},
    "reading_not_read": {"zh": "（未能翻译）", "en": "(not translated)"},
    # a reading below search/termlexicon.SURE_CONFIDENCE is a guess, and said to be one
    "reading_maybe": {"zh": "可能是", "en": "maybe"},
    "reading_author": {"zh": "作者", "en": "author"},
    # the zh page's optional Chinese glosses of a hit's matched terms (search/display.term_glosses)
    "glosses": {"zh": "术语", "en": "Terms"},
    "glosses_show": {"zh": "显示匹配术语的中文释义", "en": "Show Chinese glosses of matched terms"},
    "glosses_hide": {"zh": "隐藏术语释义", "en": "Hide the glosses"},
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
    # The header's light / dark switch (app.js) and the `?` key's help (keys.js)
    "theme_to_dark": {"zh": "深色", "en": "Dark"},
    "theme_to_light": {"zh": "浅色", "en": "Light"},
    "keys_help_title": {"zh": "键盘快捷键", "en": "Keyboard shortcuts"},
    "keys_help_slash": {"zh": "跳到检索框", "en": "Go to the search box"},
    "keys_help_jk": {"zh": "选择下一篇 / 上一篇论文", "en": "Select the next / previous paper"},
    "keys_help_o": {"zh": "打开选中的论文（返回后仍选中它）", "en": "Open the selected paper (still selected when you come back)"},
    "keys_help_tln": {"zh": "给选中的论文加标签 · 喜欢 · 不感兴趣", "en": "Tag · like · not interested, for the selected paper"},
    "keys_help_question": {"zh": "显示或关闭本帮助", "en": "Show or close this help"},
    "keys_help_close": {"zh": "按 Esc 或 ? 关闭。", "en": "Esc or ? closes it."},
    "to_filters": {"zh": "筛选 ↓", "en": "Filters ↓"},
    # A hit's library controls (web/library_forms.py)
    "marks_now": {"zh": "你的标记", "en": "Your marks"},
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
    # A tag's recommendations page (web/library_pages.py): what the reader can expect
    "rec_no_extra": {"zh": "这台服务器没有安装推荐功能。", "en": "This server cannot make recommendations."},
    "rec_preparing": {"zh": "推荐所需的数据正在后台准备（{stage}），通常一两分钟内完成；请稍后刷新本页。",
                      "en": "What recommendations learn from is being prepared in the background ({stage}); this "
                            "usually takes a minute or two. Reload this page then."},
    "rec_not_prepared": {"zh": "这台服务器还没有准备好推荐所需的数据；准备好之后这里会列出推荐。",
                         "en": "This server has not prepared what recommendations learn from yet; they will be "
                               "listed here once it has."},
    "rec_nothing_tag": {"zh": "标签“{tag}”中还没有可供学习的论文：给几篇论文加上这个标签，或者刚加入的论文要等下次后台更新。",
                        "en": "Tag “{tag}” has no papers to learn from yet: tag a few papers with it (papers added "
                              "since the last background update are not learned from until the next)."},
    "rec_nothing_all": {"zh": "文献库中还没有可供学习的论文：先给论文加标签或标记喜欢。",
                        "en": "Your library has no papers to learn from yet: tag or like some papers first."},
    "rec_invalid": {"zh": "无法给出推荐：{message}", "en": "No recommendations: {message}"},
    "rec_because_tag": {"zh": "与标签“{tag}”中的《{title}》最相近（相似度 {score}）",
                        "en": "Most like “{title}” in tag “{tag}” (similarity {score})"},
    "rec_because_all": {"zh": "与文献库中的《{title}》最相近（相似度 {score}）",
                        "en": "Most like “{title}” in your library (similarity {score})"},
    "rec_shared_words": {"zh": "，共同词语：{words}", "en": "; shared words: {words}"},
    "rec_because_then": {"zh": "；其次是《{title}》", "en": "; then “{title}”"},
    "stage_Chinese terms": {"zh": "中文术语", "en": "Chinese terms"},
    "stage_library features": {"zh": "文献库特征", "en": "library features"},
    "stage_first-pass vectors": {"zh": "快速初筛向量", "en": "first-pass vectors"},
    "stage_e5 vectors": {"zh": "语义向量", "en": "semantic vectors"},
    "stage_English vectors": {"zh": "英文向量", "en": "English vectors"},
    "stage_topics": {"zh": "主题预测", "en": "topic predictions"},
    "stage_topic map": {"zh": "主题地图", "en": "topic map"},
    "stage_progress": {"zh": "第 {number}/{total} 步：{name}", "en": "step {number} of {total}: {name}"},
}


# An error page's sentence by the API's error code (web/routes.render_error): the zh page says it
# in Chinese; the en page keeps the API's own message except where that names a command.
ERRORS_ZH: dict[str, str] = {
    "invalid_parameter": "网址中的参数不正确（例如页码过大或取值无效）。",
    "query_syntax": "检索式有语法错误：请检查引号和括号是否成对。",
    "bad_query": "检索式有语法错误：请检查引号和括号是否成对。",
    "invalid_query": "检索式无效。",
    "not_found": "找不到这个页面或这篇论文。",
    "venue_not_found": "没有这个会议的论文。",
    "author_not_found": "没有这位作者的论文。",
    "writes_disabled": "本服务器为只读：无法在此修改。",
    "csrf_failed": "表单已过期或不是本站生成的：请刷新页面后再提交。",
    "unauthorized": "请先登录后再修改。",
    "login_required": "请先登录。",
    "invalid_body": "提交的内容有误。",
    "invalid_change": "无法完成这次修改。",
    "invalid_import": "无法读取导入的文件。",
    "body_too_large": "提交的内容过大。",
    "too_many_logins": "登录尝试过多，请稍后再试。",
    "map_not_computed": "主题地图尚未生成；服务器在后台准备好后会显示在这里。",
    "trends_not_computed": "趋势图尚未生成；服务器在后台准备好后会显示在这里。",
    "no_embeddings": "论文的向量尚未准备好；服务器在后台准备好后会显示在这里。",
    "generic": "请求无法完成。",
}
ERRORS_EN_PAGE: dict[str, str] = {
    "map_not_computed": "The topic map is not drawn yet; it appears here once the server has prepared it.",
    "trends_not_computed": "The trends chart is not drawn yet; it appears here once the server has prepared it.",
    "no_embeddings": "The papers' vectors are not ready yet; this appears once the server has prepared them.",
}


def error_message(code: str | None, message: str, lang: Lang) -> str:
    """An error page's sentence in the reader's language (the API's English where none is needed)."""
    if lang == "zh":
        return ERRORS_ZH.get(code or "", ERRORS_ZH["generic"])
    return ERRORS_EN_PAGE.get(code or "", message)


# A search notice in the reader's language, by its code (search/notices.py has the English).
NOTICES_ZH: dict[str, str] = {
    "page_size_capped": "每页最多显示 {limit} 篇",
    "page_capped": "最多只能翻到第 {limit} 页",
    "common_words_only": "检索词都是常用词，未参与检索",
    "relaxed_match": "没有论文包含全部检索词；显示与部分检索词最匹配的 {total:,} 篇论文",
    "carried_over": "没有论文包含这些中文词；已按英文检索：{english}（{total:,} 篇论文）",
    "mode_unavailable": "此服务器暂不支持{mode_name}检索，显示关键词检索结果",
    "semantic_not_built": "按语义排序尚未就绪，以下结果按关键词匹配",
    "semantic_partial": "按语义排序目前只覆盖部分论文，其余论文仍在准备中；未覆盖的论文按关键词找到",
    "first_pass": "部分论文暂按快速初筛向量排序；完整模型读完这些论文后（通常一小时内）排序会更准确",
    "similar_by_words": "按共同词语查找相似论文：语义索引暂时无法回答",
    "query_shortened": "语义检索只读取查询的前 {limit} 个字符（关键词仍全部检索）",
    "unknown_tag": "你的文献库中没有标签为“{tag}”的论文（tag: 只检索你加过标签的论文）",
    "id_match": "{paper_id} 是这个编号对应的论文",
    "unknown_id": "本数据目录中没有 {kind} 编号为 {value} 的论文；可用此命令获取：{command}",
    "person_match": "{name} 的论文（{papers:,} 篇）",
    "filter_words": "已将“{words}”读作筛选条件（会议、年份）",
    "no_match": "没有匹配的论文；可以换用其他或更少的检索词、换一种检索方式，或减少筛选条件",
    "spelling_corrected": "已显示“{corrected}”的结果（输入的是“{typed}”）",
}


# The page's English where the CLI's sentence names a command or a changing figure: a reader is
# told what to expect, not what an operator types (issue 28 item 6).
NOTICES_EN_PAGE: dict[str, str] = {
    "mode_unavailable": "{mode} search is not available on this server yet; showing keyword results",
    "semantic_not_built": "ranking by meaning is not ready yet; these results match your words",
    "semantic_partial": "ranking by meaning covers part of the papers so far and the rest are being prepared; "
                        "papers not covered yet are found by their words",
    "first_pass": "some papers are ranked by quick first-pass vectors; the ranking gets more accurate once the full "
                  "model has read them (usually within the hour)",
}


def translate_notice(notice: str, lang: Lang) -> str:
    """A Notice in `lang` as a page shows it; plain strings and codes without a translation stay as they are."""
    code = getattr(notice, "code", None)
    if lang == "en" and code in NOTICES_EN_PAGE:
        return NOTICES_EN_PAGE[code].format(**dict(getattr(notice, "values", {})))
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
