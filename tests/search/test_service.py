"""SearchService over an index of 2,000 real papers: filters, facets, paging, sorting, modes."""

from __future__ import annotations

from collections import Counter

import pytest

from papersift.config import MAX_PAGE, MAX_PAGE_SIZE
from papersift.search.types import Filters, QuerySyntaxError, SearchRequest
from papersift.store import Store


def keyword(query: str = "", **options) -> SearchRequest:
    return SearchRequest(query=query, mode="keyword", **options)


@pytest.fixture(scope="module")
def papers(indexed_dir):
    return [paper for _, paper in Store(indexed_dir, readonly=True).iter_papers(0)]


def test_every_word_must_match(service, papers):
    response = service.search(keyword("reinforcement learning", size=100))
    assert response.total > 20
    for hit in response.hits:
        text = f"{hit.paper.title} {hit.paper.abstract} {' '.join(hit.paper.keywords)}".lower()
        assert "reinforc" in text and "learn" in text


def test_total_matches_a_scan_of_the_store(service, papers):
    expected = sum(1 for paper in papers if "bandit" in f"{paper.title} {paper.abstract or ''}".lower())
    response = service.search(keyword("bandit"))
    # "bandit" stems to "bandit": plural and singular both count; nothing else does.
    assert response.total == expected


def test_phrase_and_exclusion(service):
    phrase = service.search(keyword('"neural network"', size=100))
    assert phrase.total and all("neural network" in f"{h.paper.title} {h.paper.abstract}".lower() for h in phrase.hits)
    excluded = service.search(keyword('"neural network" -deep', size=100))
    assert excluded.total < phrase.total
    assert all("deep" not in f"{h.paper.title} {h.paper.abstract}".lower() for h in excluded.hits)


def matching_ids(service, query: str) -> set[str]:
    """Every paper the query matches, page by page."""
    found: set[str] = set()
    page, total = 1, None
    while total is None or len(found) < total:
        response = service.search(keyword(query, size=MAX_PAGE_SIZE, page=page))
        total = response.total
        if not response.hits:
            break
        found |= {hit.paper.id for hit in response.hits}
        page += 1
    assert len(found) == total, f"{query!r}: {total} matches counted, {len(found)} paged"
    return found


def test_or_is_the_union(service):
    bandit, kernel = matching_ids(service, "bandit"), matching_ids(service, "kernel")
    assert bandit - kernel and kernel - bandit  # neither set holds the other: the union differs from both
    assert matching_ids(service, "bandit OR kernel") == bandit | kernel


def test_filters_from_query_and_request_agree(service, papers):
    by_query = service.search(keyword("venue:icml year:2015..2018", size=100))
    by_request = service.search(keyword("", filters=Filters(venues=("ICML",), year_from=2015, year_to=2018), size=100))
    expected = sum(1 for p in papers if p.venue == "ICML" and p.year and 2015 <= p.year <= 2018)
    assert by_query.total == by_request.total == expected > 0
    assert {hit.paper.id for hit in by_query.hits} == {hit.paper.id for hit in by_request.hits}


def test_area_status_and_author_filters(service, papers):
    with_area = [p for p in papers if p.area]
    area = Counter(p.area for p in with_area).most_common(1)[0][0]
    assert service.search(keyword(f'area:"{area}"')).total == sum(p.area == area for p in papers)
    status = Counter(p.status for p in papers if p.status).most_common(1)[0][0]
    assert service.search(keyword(f"status:{status.lower()}")).total == sum(p.status == status for p in papers)
    author = next(p.authors[0] for p in papers if p.authors and len(p.authors[0].split()) == 2)
    response = service.search(keyword(f'author:"{author}"', size=100))
    assert response.total >= 1
    assert all(any(author.lower() == name.lower() for name in hit.paper.authors) for hit in response.hits)


def test_facets_count_the_current_query(service, papers):
    response = service.search(keyword("learning"))
    for name in ("venue", "year", "area", "subarea", "status"):
        assert name in response.facets
    assert sum(value.count for value in response.facets["venue"]) == response.total
    learning = [p for p in papers if "learn" in f"{p.title} {p.abstract or ''} {' '.join(p.keywords)}".lower()]
    top_venue = response.facets["venue"][0]
    # Every counted paper really matches "learning" (the stemmed term is in its text).
    assert top_venue.count <= sum(p.venue == top_venue.value for p in learning)
    years = [int(value.value) for value in response.facets["year"]]
    assert years == sorted(years, reverse=True)


def test_facet_values_cover_the_index(service, papers):
    venues = {value.value: value.count for value in service.facet_values()["venue"]}
    assert venues == Counter(p.venue for p in papers if p.venue)


def test_paging_edges(service):
    first = service.search(keyword("learning", size=5))
    second = service.search(keyword("learning", size=5, page=2))
    assert len(first.hits) == 5 and first.total == second.total
    assert not {h.paper.id for h in first.hits} & {h.paper.id for h in second.hits}
    last_page = (first.total + 4) // 5
    tail = service.search(keyword("learning", size=5, page=last_page))
    assert 1 <= len(tail.hits) <= 5
    assert service.search(keyword("learning", size=5, page=last_page + 1)).hits == []
    capped = service.search(keyword("learning", size=MAX_PAGE_SIZE + 50))
    assert len(capped.hits) == MAX_PAGE_SIZE and capped.notices
    beyond = service.search(keyword("learning", page=MAX_PAGE + 1))
    assert beyond.request.page == MAX_PAGE and beyond.notices
    with pytest.raises(ValueError):
        service.search(keyword("learning", page=0))


def test_default_page_size_is_20(service):
    assert len(service.search(keyword("learning")).hits) == 20


def test_sort_by_year(service):
    newest = [h.paper.year for h in service.search(keyword("learning", sort="newest", size=50)).hits]
    oldest = [h.paper.year for h in service.search(keyword("learning", sort="oldest", size=50)).hits]
    assert newest == sorted(newest, reverse=True) and oldest == sorted(oldest)
    assert newest[0] >= oldest[-1]


def test_relevance_scores_descend_and_title_counts_more(service):
    response = service.search(keyword("bandit", size=50))
    scores = [hit.score for hit in response.hits]
    assert scores == sorted(scores, reverse=True)
    in_title = [i for i, hit in enumerate(response.hits) if "bandit" in hit.paper.title.lower()]
    assert in_title and in_title[0] == 0


def test_no_match_for_all_words_relaxes_with_a_notice(service):
    response = service.search(keyword("bandit zzzunmatchedword"))
    assert response.total > 0 and any("some of them" in notice for notice in response.notices)


def test_a_chinese_keyword_query_no_paper_contains_is_carried_over_by_the_dictionary(service):
    response = service.search(keyword("梯度 venue:ICML"))  # 梯度: "gradient" in CC-CEDICT
    assert [notice.code for notice in response.notices] == ["carried_over"]
    assert "gradient" in response.notices[0]
    assert response.total > 0 and all(hit.paper.venue == "ICML" for hit in response.hits)  # filters kept
    assert all("gradient" in f"{hit.paper.title} {hit.paper.abstract}".lower() for hit in response.hits)
    assert any("<mark>" in hit.highlights["abstract"] for hit in response.hits)  # the English words are marked
    # English words no paper has are not carried anywhere; nor is Chinese the dictionary lacks
    assert service.search(keyword("zzzunmatchedword")).total == 0
    assert service.search(keyword("龘龘")).total == 0


def test_a_mixed_query_whose_chinese_words_no_paper_has_is_carried_over_not_cut_to_its_english_words(service):
    # "bandit 遗憾" (regret): no paper has the Chinese word, but "bandit" alone matches many
    response = service.search(keyword("bandit 遗憾", size=5))
    assert [notice.code for notice in response.notices] == ["carried_over"]
    assert "bandit" in response.notices[0] and "regret" in response.notices[0]
    assert "sorry" not in response.notices[0]  # 遗憾's other sense ("to be sorry that"): no paper here uses it
    first = f"{response.hits[0].paper.title} {response.hits[0].paper.abstract}".lower()
    assert "bandit" in first and "regret" in first  # both words rank first, not "bandit" alone
    # an English query that matches in part still relaxes as before
    assert [notice.code for notice in service.search(keyword("bandit zzzunmatchedword")).notices] == ["relaxed_match"]


def test_a_chinese_query_of_one_dictionary_word_and_single_characters_finds_papers(service):
    # "图神经网络" (graph neural network): once no paper matched and no notice said why
    response = service.search(keyword("图神经网络", size=5))
    # also searched as "graph neural", an alternative of the guess, and the notice says so
    assert [notice.code for notice in response.notices] == ["carried_over_also"]
    assert "neural network" in response.notices[0] and "graph neural" in response.notices[0].split("also as:")[1]
    assert response.total and "neural network" in f"{response.hits[0].paper.title} {response.hits[0].paper.abstract}".lower()


def test_a_chinese_term_is_searched_like_its_english_reading(service):
    # 图神经网络: once carried over to "neural network" by the dictionary, then read as the phrase
    # papers use and searched like the English query (every word); now a sure reading is searched as
    # that phrase, quoted (crosslingual.phrase_query: a term names one thing), so its papers come
    # first. 卷积神经网络: a sure glossary reading with no other spelling papers use.
    response = service.search(keyword("卷积神经网络", size=5))
    english = service.search(keyword('"convolutional neural networks"', size=5))
    assert english.total < service.search(keyword("convolutional neural networks", size=5)).total  # the phrase is narrower
    assert response.reading.english == "convolutional neural networks"
    assert [(term.chinese, term.english, term.shown_sure) for term in response.reading.terms] == [
        ("卷积神经网络", "convolutional neural networks", True)]
    assert [hit.paper.id for hit in response.hits] == [hit.paper.id for hit in english.hits]
    assert response.total == english.total


def test_a_guessed_chinese_term_is_searched_as_its_reading_or_its_alternatives(service):
    # 图神经网络 reads "graph neural networks" from a glossary entry under the sure cut: a guess is
    # searched as its reading or the phrases it keeps beside it, and the notice names them all
    response = service.search(keyword("图神经网络", size=5))
    (term,) = response.reading.terms
    assert (term.english, term.shown_sure) == ("graph neural networks", False)
    assert [notice.code for notice in response.notices] == ["carried_over_also"]
    phrase = service.search(keyword('"graph neural networks"', size=5))
    assert response.total > phrase.total and "graph neural networks" in response.notices[0]


def test_a_chinese_term_its_phrases_find_makes_no_fallback_query(service, monkeypatch):
    """The reading's words searched all or any are the fallbacks of a term its phrases do not find:
    a page whose phrases find papers never builds them."""
    from papersift.search import service as service_module

    monkeypatch.setattr(service_module, "carried_over_query", lambda *args, **kwargs: pytest.fail("a fallback built"))
    response = service.search(keyword("卷积神经网络", size=5))
    assert response.total > 0 and [notice.code for notice in response.notices] == ["carried_over"]


def test_the_reading_can_be_turned_off_to_search_the_words_as_typed(service):
    response = service.search(keyword("图神经网络", literal=True))
    assert response.total == 0 and response.reading is None
    assert "carried_over" not in [getattr(notice, "code", None) for notice in response.notices]


def test_an_english_query_has_no_reading(service):
    assert service.search(keyword("graph neural networks")).reading is None


def test_only_stop_words_gives_a_notice_not_everything(service):
    response = service.search(keyword("the of and"))
    assert response.total == 0 and response.notices


def test_hostile_queries_never_crash(service):
    for query in ['"', "-", "OR", "((((", "\x00\x01", "venue:", "a" * 5000, "*:*", "\\", "title:", "-" * 50]:
        try:
            response = service.search(keyword(query))
        except QuerySyntaxError as error:
            assert error.problem
        else:
            assert response.total >= 0


def test_highlights_escape_html_and_mark_matches(service):
    response = service.search(keyword("bandit", size=5))
    assert len(response.hits) == 5
    for hit in response.hits:
        marked = hit.highlights["title"] + hit.highlights["abstract"]
        assert "<mark>" in marked
        assert "<" not in marked.replace("<mark>", "").replace("</mark>", "")


def test_unavailable_modes_fall_back_to_keyword_with_a_notice(service):
    response = service.search(SearchRequest(query="bandit", mode="semantic"))
    assert response.notices, "this data dir has no semantic index: the request must say it fell back"
    assert "keyword" in response.notices[0]
    assert response.total == service.search(keyword("bandit")).total > 0


def test_get_and_rank(service, papers):
    paper = papers[10]
    assert service.get(paper.id) == paper
    ranked = service.rank(paper.title, k=5)
    assert ranked[0][0] == paper.id
    pool = [p.id for p in papers[:50]]
    assert {paper_id for paper_id, _ in service.rank(paper.title, k=50, candidate_ids=pool)} <= set(pool)


@pytest.mark.models
def test_a_running_service_picks_up_vectors_published_after_it_started(sample_data_dir, tmp_path, monkeypatch):
    import numpy as np
    from tests.search.conftest import indexed_copy

    from papersift.index.vectors import write_index
    from papersift.models import DEFAULT_MODEL, get_spec
    from papersift.search import semantic
    from papersift.search import service as service_module

    data_dir = indexed_copy(sample_data_dir, tmp_path / "data")
    running = service_module.SearchService(data_dir)
    request = SearchRequest(query="graph neural networks", mode="semantic")
    assert any("not available" in notice for notice in running.search(request).notices)

    seq_papers = list(Store(data_dir, readonly=True).iter_papers())
    vectors = np.random.default_rng(0).standard_normal((len(seq_papers), get_spec(DEFAULT_MODEL).dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    write_index(data_dir, DEFAULT_MODEL, [paper.id for _, paper in seq_papers], vectors,
                papers_total=len(seq_papers), last_seq=max(seq for seq, _ in seq_papers))
    monkeypatch.setattr(service_module, "RETRIEVER_RECHECK_S", 0.0)
    # Random stand-in vectors sit at cosine ~0 from any query: below e5's relevance floor, which
    # is calibrated for its real vectors (search/semantic.py); this test is about picking them up.
    monkeypatch.setattr(semantic, "RELEVANCE_FLOORS", {})
    response = running.search(request)
    assert not any("not available" in notice for notice in response.notices)
    assert response.hits


def test_a_chinese_query_over_papers_without_chinese_text_does_not_load_jieba(indexed_dir):
    # The CLI paid ~2 s per Chinese query loading jieba to segment words no paper could have
    import subprocess
    import sys

    script = ("import sys; from papersift.search.service import SearchService; "
              "from papersift.search.types import SearchRequest; "
              f"response = SearchService({str(indexed_dir)!r}).search(SearchRequest(query='图神经网络', mode='keyword')); "
              "print(response.total > 0, 'rjieba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]
