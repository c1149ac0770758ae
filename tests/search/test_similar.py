"""Similar papers and the semantic/hybrid retrievers on a small real data dir."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index import lexical
from papersift.index.embeddings import Encoder, embed_store
from papersift.index.vectors import VectorIndex
from papersift.models import DEFAULT_MODEL, build_model
from papersift.record import paper_from_dict
from papersift.search.service import SearchService
from papersift.search.similar import UnknownPaperError, clip_like_text, similar_to_paper
from papersift.search.types import Filters, SearchRequest
from papersift.store import Store

PAPERS = 60


@pytest.fixture(scope="module")
def data_dir(sample_records, tmp_path_factory):
    build_model(DEFAULT_MODEL, log=lambda _: None)
    data_dir = tmp_path_factory.mktemp("similar")
    store = Store(data_dir)
    store.upsert([paper_from_dict(record) for record in sample_records[:PAPERS]])
    store.close()
    lexical.build(data_dir)
    encoder = Encoder(DEFAULT_MODEL, max_tokens=128)
    texts = sum(len(chunks) for chunks in encoder.passage_chunks(
        [paper_from_dict(record) for record in sample_records[:PAPERS]]))
    embed_store(data_dir, encoder, limit=texts - 5)  # the 5 longest texts not embedded yet
    return data_dir


@pytest.fixture(scope="module")
def service(data_dir):
    return SearchService(data_dir)


@pytest.mark.models
def test_similar_to_paper_is_the_exact_neighbour_order_without_itself(data_dir):
    index = VectorIndex.open(data_dir, DEFAULT_MODEL)
    paper_id = index.paper_ids[7]
    hits = similar_to_paper(index, paper_id, 10)
    vectors = np.asarray(index.vectors)
    scores = vectors @ index.vector_of(paper_id)  # its own (first) passage against every passage
    ranked = dict.fromkeys(index.paper_ids[row] for row in np.argsort(-scores, kind="stable"))  # best chunk first
    expected = [other for other in ranked if other != paper_id][:10]
    assert [paper_id for paper_id, _ in hits] == expected
    with pytest.raises(UnknownPaperError):
        similar_to_paper(index, "no-such-paper", 3)


@pytest.mark.models
def test_like_id_through_the_service_applies_filters(service, data_dir):
    index = VectorIndex.open(data_dir, DEFAULT_MODEL)
    paper_id = index.paper_ids[3]
    venue = service.get(index.paper_ids[20]).venue
    response = service.search(SearchRequest(mode="semantic", like_id=paper_id, filters=Filters(venues=(venue,)), size=50))
    assert response.hits and all(hit.paper.venue == venue for hit in response.hits)
    assert paper_id not in [hit.paper.id for hit in response.hits]
    in_venue = [pid for pid in index.row_of if pid != paper_id and service.get(pid).venue == venue]
    assert response.total == len(in_venue)  # filtering lost nothing


@pytest.mark.models
def test_pasted_abstract_finds_its_paper_first(service, data_dir):
    index = VectorIndex.open(data_dir, DEFAULT_MODEL)
    paper = service.get(index.paper_ids[11])
    for mode in ("semantic", "hybrid"):
        response = service.search(SearchRequest(mode=mode, like_text=paper.abstract, size=5))
        assert response.hits[0].paper.id == paper.id, mode


@pytest.mark.models
def test_hybrid_reports_partial_coverage(service):
    response = service.search(SearchRequest(query="neural networks", mode="hybrid"))
    assert any("covers" in notice and "embedding is in progress" in notice for notice in response.notices)
    assert response.hits


@pytest.mark.models
def test_filter_only_requests_browse_by_keyword(service):
    venue = service.get(VectorIndex.open(service.data_dir, DEFAULT_MODEL).paper_ids[0]).venue
    keyword = service.search(SearchRequest(mode="keyword", filters=Filters(venues=(venue,))))
    hybrid = service.search(SearchRequest(mode="hybrid", filters=Filters(venues=(venue,))))
    assert hybrid.total == keyword.total > 0


def test_clip_like_text():
    with pytest.raises(ValueError, match="empty"):
        clip_like_text("  \n ")
    assert clip_like_text("a\n\n b") == "a b"


@pytest.mark.models
def test_rank_as_pasted_text_is_the_similar_papers_path(service, data_dir):
    index = VectorIndex.open(data_dir, DEFAULT_MODEL)
    paper = service.get(index.paper_ids[11])
    for mode in ("semantic", "hybrid"):
        ranked = service.rank(paper.abstract, 5, mode=mode, like="text")
        page = service.search(SearchRequest(mode=mode, like_text=paper.abstract, size=5))
        assert [paper_id for paper_id, _ in ranked] == [hit.paper.id for hit in page.hits], mode
    with pytest.raises(ValueError, match="semantic or hybrid"):
        service.rank(paper.abstract, 5, mode="keyword", like="text")
    with pytest.raises(ValueError, match="'text' or 'paper'"):
        service.rank(paper.abstract, 5, mode="semantic", like="yes")


@pytest.mark.models
def test_rank_similar_to_a_stored_paper_is_the_similar_papers_path(service, data_dir):
    paper_id = VectorIndex.open(data_dir, DEFAULT_MODEL).paper_ids[11]
    ranked = service.rank(paper_id, 5, mode="hybrid", like="paper")
    page = service.search(SearchRequest(mode="hybrid", like_id=paper_id, size=5))
    assert [found for found, _ in ranked] == [hit.paper.id for hit in page.hits]
    assert paper_id not in [found for found, _ in ranked]
