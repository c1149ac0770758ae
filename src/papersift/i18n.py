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
    # where topics come from (search/topic_coverage.py): the topic browser, the area facet, the status page
    "topic_coverage": {"zh": "{labelled} 篇论文的主题来自其来源列表（{lists}）；{predicted} 篇的主题由分类器预测（标为“预测”）；"
                             "{without} 篇尚无主题。",
                       "en": "{labelled} papers carry the topic their source lists ({lists}); {predicted} have a topic "
                             "predicted by a classifier (marked “predicted”); {without} have none yet."},
    # said the same whether or not a background prediction runs now (a data dir indexed by hand has none)
    "topic_coverage_pending": {"zh": "其余论文还没有主题；在它们得到主题之前，这里的计数只包含已有主题的论文。",
                               "en": "The other papers have no topic yet; until they get one, these counts cover "
                                     "only the papers that have one."},
    "topic_area_labelled": {"zh": "其中 {count} 篇来自来源列表", "en": "{count} of them from the source lists"},
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
    "stage_first topics": {"zh": "初步主题预测（按词）", "en": "first topic predictions (from words)"},
    "stage_topics": {"zh": "主题预测", "en": "topic predictions"},
    "stage_topic map": {"zh": "主题地图", "en": "topic map"},
    # the operator's status page (web/status_page.py); command names are in the page itself
    "status_title": {"zh": "服务器状态", "en": "Server status"},
    "status_intro": {"zh": "本页只在服务器本机上显示：数据、索引、后台工作各到了哪一步。",
                     "en": "Shown only on the server's own machine: where the data, the indexes and the background "
                           "work stand."},
    "status_forbidden": {"zh": "状态页只在服务器本机上显示：请在服务器上打开 http://127.0.0.1:端口/status。",
                         "en": "The status page is shown only on the server's own machine: open "
                               "http://127.0.0.1:PORT/status there."},
    "status_keyword_index": {"zh": "关键词索引", "en": "Keyword index"},
    "status_index_line": {"zh": "版本 {generation}：已索引 {documents} 篇论文，建于 {built}，更新于 {updated}。",
                          "en": "Generation {generation}: {documents} papers indexed, built {built}, updated {updated}."},
    "status_no_index": {"zh": "还没有关键词索引：还不能检索。", "en": "No keyword index yet: nothing can be searched."},
    "status_papers": {"zh": "论文", "en": "Papers"},
    "status_papers_line": {"zh": "共 {total} 篇：{with_abstract} 篇有摘要，{title_only} 篇只有标题。",
                           "en": "{total} papers: {with_abstract} with an abstract, {title_only} with a title only."},
    "status_no_papers": {"zh": "还没有论文。", "en": "No papers yet."},
    "status_vectors": {"zh": "向量（按语义检索）", "en": "Vectors (search by meaning)"},
    "status_vectors_line": {"zh": "{model}：{papers} / {total} 篇（{share}），写于 {written}",
                            "en": "{model}: {papers} of {total} papers ({share}), written {written}"},
    "status_no_vectors": {"zh": "还没有向量：只能按关键词检索。", "en": "No vectors yet: keyword search only."},
    "status_background": {"zh": "后台工作", "en": "Background work"},
    "status_no_background": {"zh": "这个数据目录还没有运行过后台工作。", "en": "No background work has run on this data dir."},
    "status_background_stopped": {"zh": "后台工作没有在运行；未完成的步骤会在下次启动时继续。",
                                  "en": "The background work is not running; unfinished steps resume at the next start."},
    "status_stage_line": {"zh": "{number}. {name}：{state}", "en": "{number}. {name}: {state}"},
    "status_state_waiting": {"zh": "等待中", "en": "waiting"},
    "status_state_running": {"zh": "进行中", "en": "running"},
    "status_state_done": {"zh": "完成", "en": "done"},
    "status_state_failed": {"zh": "失败（原因见日志）", "en": "failed (the log says why)"},
    "status_state_stopped": {"zh": "已停止", "en": "stopped"},
    "status_took": {"zh": "用时 {seconds} 秒", "en": "took {seconds} s"},
    "status_last_log": {"zh": "日志最后一行", "en": "Last line of the log"},
    "status_topics": {"zh": "主题", "en": "Topics"},
    "status_topic_model": {"zh": "预测模型 {version}", "en": "Prediction model {version}"},
    "status_last_ingest": {"zh": "最近一次导入", "en": "Last ingest"},
    "status_ingest_line": {"zh": "{started}：{files} 个文件，读取 {read} 条，新增 {added}，更新 {updated}，拒绝 {rejected}"
                                 "（{state}；共 {runs} 次导入）",
                           "en": "{started}: {files} files, {read} records read, {added} added, {updated} updated, "
                                 "{rejected} rejected ({state}; {runs} ingest runs in all)"},
    "status_ingest_ok": {"zh": "完成", "en": "finished"},
    "status_ingest_rejected": {"zh": "完成，有记录被拒绝", "en": "finished, some records rejected"},
    "status_ingest_running": {"zh": "进行中", "en": "running"},
    "status_ingest_interrupted": {"zh": "中断（下次导入会继续）", "en": "interrupted (the next ingest completes it)"},
    "status_ingest_failed": {"zh": "失败", "en": "failed"},
    "status_ingest_stopped": {"zh": "在第一个错误处停止", "en": "stopped at the first error"},
    "status_no_ingest": {"zh": "还没有导入过论文。", "en": "No ingest has run yet."},
    "status_commands": {"zh": "在服务器上运行的命令", "en": "Commands to run on the server"},
    "status_cmd_ingest": {"zh": "从文件加入论文（JSONL、会议原始列表、BibTeX、CSV）",
                          "en": "adds papers from files (JSONL, the conferences' lists, BibTeX, CSV)"},
    "status_cmd_index": {"zh": "让关键词索引和中文术语跟上库里的论文",
                         "en": "brings the keyword index and the Chinese terms up to the papers"},
    "status_cmd_embed": {"zh": "计算按语义检索所用的向量（中断后从停下的地方继续）",
                         "en": "computes the vectors that search by meaning reads (resumes where it stopped)"},
    "status_cmd_predict": {"zh": "为没有来源主题的论文预测领域 · 子领域，并更新索引",
                           "en": "predicts Area · Subarea of the papers without a source topic and re-indexes them"},
    "status_cmd_update": {"zh": "抓取新的论文列表，然后导入、索引、计算向量、发送摘要",
                          "en": "fetches new paper lists, then ingests, indexes, embeds and sends digests"},
    "stage_progress": {"zh": "第 {number}/{total} 步：{name}", "en": "step {number} of {total}: {name}"},
}

# The labels of the pages that have their own (`labels.<name>` in their templates): "<page>.<name>",
# handed to a page by page_labels(page).
MESSAGES.update({
    # the library pages (web/library_view.py, library_forms.py, library_pages.py)
    "library.library": {"zh": "文献库", "en": "Library"},
    "library.tags": {"zh": "标签", "en": "Tags"},
    "library.all": {"zh": "全部论文", "en": "All papers"},
    "library.empty": {"zh": "文献库为空：在检索结果上给论文加标签或标记，或导入文件。",
                      "en": "Your library is empty: tag, like or mark papers on the search results, or import a file."},
    "library.liked": {"zh": "喜欢", "en": "liked"},
    "library.not_interested": {"zh": "不感兴趣", "en": "not interested"},
    "library.to-read": {"zh": "待读", "en": "to read"},
    "library.read": {"zh": "已读", "en": "read"},
    "library.note": {"zh": "笔记", "en": "Note"},
    "library.added": {"zh": "加入于", "en": "added"},
    "library.export": {"zh": "导出", "en": "Export"},
    "library.recommend": {"zh": "推荐", "en": "Recommendations"},
    "library.recommend_for": {"zh": "标签推荐", "en": "Recommended for tag"},
    "library.recommend_all": {"zh": "根据文献库推荐", "en": "Recommended from your library"},
    "library.papers": {"zh": "篇论文", "en": "papers"},
    "library.mark_seen": {"zh": "全部标为已看", "en": "Mark all as seen"},
    "library.new": {"zh": "新", "en": "new"},
    "library.private_feed": {"zh": "私人 Atom 订阅", "en": "Private Atom feed"},
    "library.only_new": {"zh": "只看新论文", "en": "Only new papers"},
    "library.all_recs": {"zh": "全部推荐", "en": "All recommendations"},
    "library.import": {"zh": "导入", "en": "Import"},
    "library.import_file": {"zh": "文件（BibTeX、RIS、CSL-JSON，或从本站导出的 JSON）",
                            "en": "File (BibTeX, RIS, CSL-JSON, or JSON exported here)"},
    "library.import_tag": {"zh": "同时加标签", "en": "Also tag them"},
    "library.reading": {"zh": "阅读状态", "en": "Reading state"},
    "library.none": {"zh": "无", "en": "none"},
    "library.save": {"zh": "保存", "en": "Save"},
    "library.remove": {"zh": "移出文献库", "en": "Remove from library"},
    "library.filters": {"zh": "筛选", "en": "Filters"},
    "library.apply": {"zh": "应用", "en": "Apply"},
    "library.venue": {"zh": "会议", "en": "Venue"},
    "library.area": {"zh": "领域", "en": "Area"},
    "library.year_from": {"zh": "起始年份", "en": "From year"},
    "library.year_to": {"zh": "截止年份", "en": "To year"},
    "library.import_summary": {"zh": "{entries} 条中匹配了 {matched} 条（{format}）。",
                               "en": "{matched} of {entries} entries matched ({format})."},
    "library.import_unmatched": {"zh": "{count} 条没有匹配到论文：", "en": "{count} entries matched no paper:"},
    "library.import_all_matched": {"zh": "每一条都匹配到了论文。", "en": "Every entry matched a paper."},
    # saved searches (web/saved_pages.py)
    "saved.saved": {"zh": "已保存的检索", "en": "Saved searches"},
    "saved.save": {"zh": "保存此检索", "en": "Save this search"},
    "saved.name": {"zh": "名称", "en": "Name"},
    "saved.new": {"zh": "新", "en": "new"},
    "saved.only_new": {"zh": "只看新论文", "en": "Only new papers"},
    "saved.all": {"zh": "全部论文", "en": "All papers"},
    "saved.mark_seen": {"zh": "全部标为已看", "en": "Mark all as seen"},
    "saved.rename": {"zh": "重命名", "en": "Rename"},
    "saved.delete": {"zh": "删除", "en": "Delete"},
    "saved.open_search": {"zh": "作为检索打开", "en": "Open as a search"},
    "saved.none": {"zh": "还没有保存的检索。", "en": "No saved searches yet."},
    "saved.nothing_new": {"zh": "自上次标为已看以来没有新论文。",
                          "en": "Nothing new since you last marked this as seen."},
    "saved.private_feed": {"zh": "私人 Atom 订阅", "en": "Private Atom feed"},
    "saved.feed_help": {"zh": "用于订阅阅读器：此检索的新论文会出现在那里；链接是私人的，请勿外传",
                        "en": "for your feed reader: new papers of this search arrive there; the link is private, "
                              "keep it to yourself"},
    "saved.make_feed": {"zh": "生成私人订阅链接", "en": "Make a private feed link"},
    "saved.new_count": {"zh": "{count} 篇新论文", "en": "{count} new"},
    "saved.read_only": {"zh": "本服务器为只读：无法在此保存检索。",
                        "en": "This server is read-only: searches cannot be saved here."},
    "saved.new_since": {"zh": "自上次访问以来的新论文", "en": "New since your last visit"},
    "saved.not_followed": {"zh": "尚未关注：点击“全部标为已看”后开始记录你在此看过的论文。",
                           "en": "Not followed yet: 'Mark all as seen' starts remembering what you have seen here."},
    # author and venue pages (web/people_pages.py)
    "people.papers": {"zh": "篇论文", "en": "papers"},
    "people.by_year": {"zh": "每年论文数", "en": "Papers by year"},
    "people.venues": {"zh": "会议", "en": "Venues"},
    "people.coauthors": {"zh": "合作者", "en": "Co-authors"},
    "people.areas": {"zh": "各年领域", "en": "Areas by year"},
    "people.area_source": {"zh": "来源标注", "en": "as listed by the source"},
    "people.area_predicted": {"zh": "预测", "en": "predicted"},
    "people.first_author": {"zh": "第一作者", "en": "first author"},
    "people.last_author": {"zh": "最后作者", "en": "last author"},
    "people.affiliations": {"zh": "单位", "en": "Affiliations"},
    "people.most_cited": {"zh": "被引最多", "en": "Most cited"},
    "people.cited": {"zh": "被引", "en": "cited"},
    "people.as_of": {"zh": "截至", "en": "as of"},
    "people.also_written": {"zh": "其他写法", "en": "Also written"},
    "people.namesakes": {"zh": "同名作者", "en": "Others with this name"},
    "people.by_name_warning": {"zh": "这里列出了署这个名字的全部论文：可能是几位同名的作者。",
                               "en": "Every paper by this name is listed here: it may be several people who share it."},
    "people.namesakes_warning": {"zh": "还有其他作者同名：他们的论文在下面各自的页面上。",
                                 "en": "Other people share this name: their papers are on their own pages below."},
    "people.all_papers": {"zh": "论文", "en": "Papers"},
    "people.with_code": {"zh": "有代码", "en": "with code"},
    "people.code": {"zh": "代码", "en": "code"},
    "people.status": {"zh": "口头 / 亮点 / 海报", "en": "Oral / spotlight / poster"},
    "people.no_statuses": {"zh": "来源未列出论文类型", "en": "the source lists no statuses"},
    "people.every_status": {"zh": "来源把每篇论文都列为 {status}", "en": "every paper listed as {status}"},
    "people.status_unknown": {"zh": "未列出", "en": "not listed"},
    "people.acceptance": {"zh": "录用率", "en": "Acceptance"},
    "people.submitted": {"zh": "投稿", "en": "submitted"},
    "people.accepted": {"zh": "录用", "en": "accepted"},
    "people.main": {"zh": "主会", "en": "main track"},
    "people.top_authors": {"zh": "高产作者", "en": "Most frequent authors"},
    "people.top_institutions": {"zh": "高产单位", "en": "Most frequent institutions"},
    "people.all_years": {"zh": "所有年份", "en": "All years"},
    "people.search_these": {"zh": "检索这些论文", "en": "Search these papers"},
    "people.search_with_code": {"zh": "有代码的论文", "en": "Papers with code"},
    "people.graph_title": {"zh": "合作者关系图", "en": "Co-author graph"},
    # the topic map (web/topics_pages.py)
    "topics_map.title": {"zh": "主题地图", "en": "Topic map"},
    "topics_map.intro": {"zh": "每个点是一篇论文（嵌入向量的二维投影），颜色表示领域；浅色点的领域由模型预测。"
                               "悬停查看标题，点击打开论文。",
                         "en": "Each dot is a paper (2-D projection of its embedding), colored by area; lighter dots "
                               "have a predicted area. Hover for the title, click to open it."},
    "topics_map.filter": {"zh": "按检索词高亮", "en": "Highlight a search"},
    "topics_map.apply": {"zh": "高亮", "en": "Highlight"},
    "topics_map.clear_search": {"zh": "清除", "en": "Clear"},
    "topics_map.trends": {"zh": "各领域论文数（按年份）", "en": "Papers per area per year"},
    "topics_map.loading": {"zh": "加载中…", "en": "Loading…"},
    "topics_map.matches": {"zh": "匹配", "en": "matches"},
    "topics_map.predicted": {"zh": "预测", "en": "predicted"},
    "topics_map.nav": {"zh": "主题地图", "en": "Topic map"},
    "topics_map.not_ready": {"zh": "主题地图尚未生成；服务器在后台准备好后会显示在这里。",
                             "en": "The topic map is not drawn yet; it appears here once the server has prepared it."},
    # signing in with the write token (web/writer_pages.py)
    "writer.sign_in": {"zh": "登录", "en": "Sign in"},
    "writer.sign_out": {"zh": "退出登录", "en": "Sign out"},
    "writer.signed_in": {"zh": "已登录", "en": "Signed in"},
    "writer.token": {"zh": "写入令牌", "en": "Write token"},
    "writer.wrong": {"zh": "这不是本服务器的写入令牌。", "en": "That is not this server's write token."},
    "writer.help": {"zh": "输入一次服务器的写入令牌；之后这个浏览器加标签、标记喜欢、保存检索和标为已看都不再询问。",
                    "en": "Type the server's write token once; this browser then tags, likes, saves searches and "
                          "marks papers as seen without asking again."},
    "writer.done": {"zh": "这个浏览器可以修改你的文献库和已保存的检索。",
                    "en": "This browser can change your library and saved searches."},
    "writer.read_only": {"zh": "本服务器为只读：无法在此修改文献库和已保存的检索。",
                         "en": "This server is read-only: the library and saved searches cannot be changed here."},
    "writer.hint": {"zh": "登录一次，即可在这个浏览器里加标签、标记喜欢和保存检索。",
                    "en": "Sign in once to tag, like and save searches in this browser."},
    # accounts (web/account_pages.py)
    "account.password_rules": {"zh": "密码长度为 {min} 到 {max} 个字符；较长的短语最容易记住。",
                               "en": "A password has {min} to {max} characters; a long phrase is easiest to remember."},
    "account.login": {"zh": "登录", "en": "Log in"},
    "account.logout": {"zh": "退出登录", "en": "Log out"},
    "account.name": {"zh": "用户名", "en": "User name"},
    "account.password": {"zh": "密码", "en": "Password"},
    "account.account": {"zh": "账户", "en": "Account"},
    "account.signup": {"zh": "注册", "en": "Sign up"},
    "account.password_again": {"zh": "再次输入密码", "en": "Password again"},
    "account.signed_in_as": {"zh": "当前用户", "en": "Logged in as"},
    "account.tokens": {"zh": "API 令牌", "en": "API tokens"},
    "account.tokens_help": {"zh": "供脚本使用：向 /api 发送 'Authorization: Bearer <令牌>'。令牌只在创建时显示一次。",
                            "en": "For scripts: send 'Authorization: Bearer <token>' to /api. A token is shown once, "
                                  "when it is made."},
    "account.token_name": {"zh": "令牌名称", "en": "Token name"},
    "account.create_token": {"zh": "创建令牌", "en": "Create a token"},
    "account.revoke": {"zh": "吊销", "en": "Revoke"},
    "account.no_tokens": {"zh": "没有 API 令牌。", "en": "No API tokens."},
    "account.new_token": {"zh": "新的 API 令牌（请立即复制：不会再次显示）",
                          "en": "Your new API token (copy it now: it is not shown again)"},
    "account.change_password": {"zh": "修改密码", "en": "Change password"},
    "account.current_password": {"zh": "当前密码", "en": "Current password"},
    "account.new_password": {"zh": "新密码", "en": "New password"},
    "account.created": {"zh": "创建于", "en": "created"},
    "account.wrong_login": {"zh": "用户名或密码错误。", "en": "Wrong user name or password."},
    "account.password_changed": {"zh": "密码已修改；其他会话已结束。", "en": "Password changed; other sessions ended."},
    "account.mismatch": {"zh": "两次输入的密码不一致。", "en": "The two passwords differ."},
    "account.invite_invalid": {"zh": "邀请无效、已用或已过期：请索取新的邀请。",
                               "en": "This invitation is unknown, used or expired: ask for a new one."},
    "account.sessions": {"zh": "会话", "en": "Sessions"},
    "account.sessions_help": {"zh": "登录了此账户的浏览器。", "en": "Browsers logged in to this account."},
    "account.this_session": {"zh": "当前会话", "en": "this session"},
    "account.expires": {"zh": "过期于", "en": "expires"},
    "account.unknown_agent": {"zh": "（未知浏览器）", "en": "(browser not known)"},
    "account.end_others": {"zh": "退出所有其他会话", "en": "Sign out all other sessions"},
    "account.others_ended": {"zh": "已退出 {count} 个其他会话。", "en": "Signed out {count} other session(s)."},
    "account.reset": {"zh": "设置新密码", "en": "Set a new password"},
    "account.reset_invalid": {"zh": "重置链接无效、已用或已过期：请向管理员索取新的链接。",
                              "en": "This reset link is unknown, used or expired: ask the admin for a new one."},
    "account.reset_done": {"zh": "密码已设置；此账户的所有会话均已结束。请用新密码登录。",
                           "en": "Password set; every session of this account has ended. Log in with the new "
                                 "password."},
    # a hit's badges (_hit.html) and the separator of a list of words in running text
    "hit_code": {"zh": "代码", "en": "code"},
    "hit_cited": {"zh": "被引", "en": "cited"},
    "word_separator": {"zh": "、", "en": ", "},
})



# An error page's sentence by the API's error code (web/routes.render_error): the zh page says it
# in Chinese; the en page keeps the API's own message except where that names a command.
ERRORS_ZH: dict[str, str] = {
    "status_local_only": "状态页只在服务器本机上显示：请在服务器上打开 http://127.0.0.1:端口/status。",
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
    "carried_over_also": "没有论文包含这些中文词；已按英文检索：{english}；另按：{also}（{total:,} 篇论文）",
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


def page_labels(page: str) -> dict[Lang, dict[str, str]]:
    """A page's own labels (the MESSAGES "<page>.<name>"), by language and name: what its
    templates read as `labels.<name>`."""
    prefix = f"{page}."
    return {lang: {key.removeprefix(prefix): texts[lang] for key, texts in MESSAGES.items() if key.startswith(prefix)}
            for lang in LANGS}


def in_every_lang(key: str) -> dict[str, str]:
    """A message in each language (lang -> text): a header link's labels."""
    return {lang: translate(key, lang) for lang in LANGS}


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
