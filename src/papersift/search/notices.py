"""Notices: what a search response tells people besides its hits (a fallback, a cap, coverage).

A Notice is the English sentence (so the CLI, JSON and logs need nothing special) that also
carries a code and its values, so the page can say it in the reader's language
(i18n.py holds the other languages' wording for each code).
"""

from __future__ import annotations

ENGLISH = {
    "page_size_capped": "page size capped at {limit}",
    "page_capped": "only the first {limit} pages can be shown",
    "common_words_only": "the query has only common words, which are not searched",
    "relaxed_match": "no paper contains all the words; showing the {total:,} papers that best match some of them",
    "carried_over": "no paper contains these Chinese words; searched in English as: {english} ({total:,} papers)",
    "carried_over_also": "no paper contains these Chinese words; searched in English as: {english}; also as: {also} "
                         "({total:,} papers)",
    "mode_unavailable": "{mode} search is not available in this data dir; showing keyword results",
    "semantic_not_built": "semantic index not built yet (run 'papersift embed'); results are keyword matches only",
    "semantic_partial": "semantic index covers {coverage:.0%} of papers ({rows:,} of {total:,}); embedding is in progress",
    "first_pass": "{share:.0%} of papers are ranked by fast first-pass vectors until 'papersift embed' finishes the full model",
    "similar_by_words": "similar papers by shared words: the semantic index cannot answer yet",
    "id_match": "{paper_id} is the paper this id names",
    "unknown_id": "no paper here has the {kind} id {value}; fetch it with: {command}",
    "person_match": "papers by {name} ({papers:,})",
    "spelling_corrected": "showing results for '{corrected}' (typed: '{typed}')",
    "filter_words": "read '{words}' as filters (venue, year)",
    "no_match": "no papers match; try other or fewer words, another mode, or fewer filters",
    "query_shortened": "the query's meaning is read from its first {limit} characters (its words are all searched)",
    "unknown_tag": "your library has no paper tagged '{tag}' (tag: searches the papers you tagged)",
}


class Notice(str):
    code: str
    values: dict

    def __new__(cls, code: str, **values) -> Notice:
        notice = super().__new__(cls, ENGLISH[code].format(**values))
        notice.code, notice.values = code, values
        return notice
