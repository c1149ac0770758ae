"""What one request may cost: the query embedded once, the candidate list retrieved once for
all facet counts and the topic tree, and counts as they were wherever the list is the same."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from tests.search.conftest import indexed_copy

from hybrid_service import add_vectors_and_bridge, hybrid_service
from papersift.search.types import FacetValue, Filters, SearchRequest
from papersift.server import create_app
from served_papers import TEST_HOSTS

# Chinese words (carried over by the term bridge) and English ones, as people mix them.
LONG_QUERY = ("图神经网络 在 分子性质预测 中的 过平滑 问题，以及 注意力机制 和 消息传递 的 表示能力 "
              "graph neural networks message passing molecules attention")


@pytest.fixture(scope="module")
def hybrid_dir(sample_data_dir, tmp_path_factory):
    data_dir = indexed_copy(sample_data_dir, tmp_path_factory.mktemp("costs"))
    add_vectors_and_bridge(data_dir)
    return data_dir


@pytest.fixture()
def counted(hybrid_dir):
    """A fresh service (nothing remembered yet) behind the app, and its counters."""
    service, encoder, retrievers = hybrid_service(hybrid_dir)
    with TestClient(create_app(hybrid_dir, service=service, allowed_hosts=TEST_HOSTS), raise_server_exceptions=True) as client:
        yield client, service, encoder, retrievers


def model_calls_of_one_search(hybrid_dir, mode: str = "hybrid") -> dict[str, int]:
    """What reading and embedding the query costs once: a fresh service's one search, no facets."""
    service, encoder, _ = hybrid_service(hybrid_dir)
    service.search(SearchRequest(query=LONG_QUERY, mode=mode, with_facets=False))
    return dict(encoder.calls)


def test_facets_and_topic_tree_embed_and_retrieve_once(counted, hybrid_dir):
    client, _, encoder, retrievers = counted
    body = client.get("/api/facets", params={"q": LONG_QUERY, "mode": "hybrid"}).json()
    assert len(body["topics"]) >= 2  # the tree has areas to count subareas for
    # The query read (its Chinese tokens through the term bridge) and embedded as for one search:
    # the counts of every facet group and area add no model call.
    assert encoder.calls == model_calls_of_one_search(hybrid_dir)
    assert sum(encoder.calls.values()) >= 1
    assert retrievers["hybrid"].calls == 1


def test_a_filtered_page_embeds_once_and_retrieves_twice(counted, hybrid_dir):
    # the hits under the filters, then one list without them for the counts beside the filters
    client, _, encoder, retrievers = counted
    params = {"q": LONG_QUERY, "mode": "hybrid", "venue": "ICLR", "year_from": 2018, "status": "Poster"}
    assert client.get("/", params=params).status_code == 200
    assert encoder.calls == model_calls_of_one_search(hybrid_dir)
    assert retrievers["hybrid"].calls == 2


def test_five_clients_sending_one_query_share_one_embedding(counted, hybrid_dir):
    client, _, encoder, _ = counted
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: client.get("/api/search", params={"q": LONG_QUERY, "mode": "semantic"}),
                                range(5)))
    assert {answer.status_code for answer in answers} == {200}
    assert len({tuple(hit["paper"]["id"] for hit in answer.json()["hits"]) for answer in answers}) == 1
    assert encoder.calls == model_calls_of_one_search(hybrid_dir, "semantic")


# -- counts as they were --------------------------------------------------------------
FACET_FILTERS = {"venue": ("venues",), "year": ("year_from", "year_to"), "area": ("areas",),
                 "subarea": ("subareas",), "status": ("statuses",)}


def previous_beside_filters(service, request: SearchRequest, facets: dict) -> dict:
    """The counts before this change: one whole search per filtered group (api/backend.py); the
    chosen values of a group count what the request lists (its own facets: issue 27's chips)."""
    own = dict(facets)
    facets = dict(facets)
    for name, fields in FACET_FILTERS.items():
        cleared = {field: (None if field.startswith("year") else ()) for field in fields}
        if all(getattr(request.filters, field) == value for field, value in cleared.items()):
            continue
        if name == "subarea" and len(request.filters.areas) != 1:
            continue
        without_own = replace(request, filters=replace(request.filters, **cleared))
        others = service.search(replace(without_own, page=1, size=1, with_facets=True)).facets.get(name, [])
        chosen = {value.value: value.count for value in own.get(name, [])}
        counted = [FacetValue(value.value, chosen.pop(value.value, value.count)) for value in others]
        counted += [FacetValue(value, count) for value, count in chosen.items()]
        facets[name] = counted if name == "year" else sorted(counted, key=lambda value: -value.count)
    return facets


def previous_tree(service, request: SearchRequest) -> list[dict]:
    base = service.search(replace(request, page=1, size=1, with_facets=True))
    tree = []
    for area in base.facets.get("area", []):
        within = replace(request, filters=replace(request.filters, areas=(area.value,)), page=1, size=1, with_facets=True)
        subareas = service.search(within).facets.get("subarea", [])
        tree.append({"area": area.value, "count": area.count,
                     "subareas": [{"value": sub.value, "count": sub.count} for sub in subareas]})
    return tree


KEYWORD_SAMPLE = [
    SearchRequest(query="learning", mode="keyword", filters=Filters(venues=("ICLR", "NeurIPS"), year_from=2018)),
    SearchRequest(query="learning", mode="keyword",
                  filters=Filters(areas=("Deep Learning",), subareas=("Large Language Models",))),
    SearchRequest(query="optimization", mode="keyword", filters=Filters(statuses=("Poster", "Oral"), year_to=2019)),
    SearchRequest(query="强化学习 策略", mode="keyword", filters=Filters(venues=("ICML",))),  # carried over
    SearchRequest(query="", mode="keyword", filters=Filters(year_from=2020, year_to=2023, venues=("ICLR",))),
]
HYBRID_SAMPLE = [  # one filtered group: the list the counts come from is the one they came from before
    SearchRequest(query="graph neural networks", mode="hybrid", filters=Filters(venues=("ICLR", "ICML"))),
    SearchRequest(query=LONG_QUERY, mode="hybrid", filters=Filters(year_from=2019)),
    SearchRequest(query="bandit regret", mode="semantic", filters=Filters(statuses=("Poster",))),
]


@pytest.mark.parametrize("request_", KEYWORD_SAMPLE + HYBRID_SAMPLE, ids=lambda r: f"{r.mode}:{r.query[:12]}")
def test_counts_beside_filters_are_those_of_before(hybrid_dir, request_):
    service, _, _ = hybrid_service(hybrid_dir)
    response = service.search(request_)
    expected = previous_beside_filters(service, request_, response.facets)
    assert any(expected.values())
    assert service.facets_beside_filters(response).facets == expected


@pytest.mark.parametrize("request_", [SearchRequest(query="learning", mode="keyword"),
                                      SearchRequest(query="扩散模型", mode="keyword", filters=Filters(year_from=2016))])
def test_keyword_topic_tree_is_that_of_before(hybrid_dir, request_):
    service, _, _ = hybrid_service(hybrid_dir)
    tree = service.facet_summary(request_).tree
    assert len(tree) >= 2 and tree == previous_tree(service, request_)


def test_hybrid_topic_tree_counts_one_list(hybrid_dir):
    # areas as before; each area's subareas now count that same list, so they add up to its count
    service, _, _ = hybrid_service(hybrid_dir)
    request = SearchRequest(query="graph neural networks", mode="hybrid")
    summary = service.facet_summary(request)
    before = previous_tree(service, request)
    assert [(node["area"], node["count"]) for node in summary.tree] == [(node["area"], node["count"]) for node in before]
    assert len(summary.tree) >= 2
    for node in summary.tree:
        assert sum(sub["count"] for sub in node["subareas"]) <= node["count"]
    assert summary.total == service.search(request).total


def recording(encoder, texts: list[str], before=None):
    """The encoder's query calls also record what they were given (and run `before` first)."""
    single, many = encoder.encode_query, encoder.encode_queries

    def encode_query(text):
        texts.append(text)
        if before is not None:
            before()
        return single(text)

    def encode_queries(batch, batch_size: int = 32):
        texts.extend(batch)
        return many(batch, batch_size)
    encoder.encode_query, encoder.encode_queries = encode_query, encode_queries


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_the_encoder_reads_a_bounded_part_of_a_long_query_and_the_response_says_so(hybrid_dir, mode):
    """A 1,000-character query cost ~2 s of encoder and reading CPU; the encoder now reads its
    first MAX_ENCODED_QUERY_CHARS characters, the keyword side all of it, and a notice says so."""
    from papersift.config import MAX_ENCODED_QUERY_CHARS

    service, encoder, _ = hybrid_service(hybrid_dir)
    texts: list[str] = []
    recording(encoder, texts)
    long_query = ("graph neural networks for molecular property prediction with message passing " * 13)[:990]
    response = service.search(SearchRequest(query=long_query, mode=mode, with_facets=False))
    assert texts and max(len(text) for text in texts) <= MAX_ENCODED_QUERY_CHARS, [len(text) for text in texts]
    assert long_query.startswith(texts[0].strip())
    assert response.total > 0
    assert "query_shortened" in [getattr(notice, "code", None) for notice in response.notices]
    short = service.search(SearchRequest(query="graph neural networks", mode=mode, with_facets=False))
    assert "query_shortened" not in [getattr(notice, "code", None) for notice in short.notices]


def test_query_encoding_waits_for_a_slot_and_keyword_searches_never_wait(hybrid_dir, monkeypatch):
    import threading
    import time

    from papersift.search import semantic

    monkeypatch.setattr(semantic, "ENCODER_SLOTS", threading.BoundedSemaphore(1))
    service, encoder, _ = hybrid_service(hybrid_dir)
    release, lock, inside, peak = threading.Event(), threading.Lock(), [0], [0]

    def hold():
        with lock:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        release.wait(60)
        with lock:
            inside[0] -= 1
    recording(encoder, [], before=hold)
    with ThreadPoolExecutor(4) as pool:
        semantic_searches = [pool.submit(service.search, SearchRequest(query=f"topic number {n}", mode="semantic",
                                                                       with_facets=False)) for n in range(3)]
        deadline = time.monotonic() + 30
        while inside[0] == 0:
            assert time.monotonic() < deadline, "no query reached the encoder"
            time.sleep(0.01)  # polling for the first encoder call
        keyword = pool.submit(service.search, SearchRequest(query="graph neural networks", mode="keyword"))
        assert keyword.result(timeout=30).total > 0  # answered while every semantic search waits on the encoder
        assert peak[0] == 1 and not any(search.done() for search in semantic_searches)
        release.set()
        assert all(search.result(timeout=60).hits for search in semantic_searches)
    assert peak[0] == 1


# -- a Chinese description: one reading, no model call for it (issue #32) -------------------
PHRASES = object()  # the data dir's phrase vectors, as the service finds them (a stand-in: never searched)


@pytest.fixture()
def reads(monkeypatch) -> list[tuple]:
    """Every read_query call the service makes, as the (encoder, bridge, phrase vectors) it was
    given; the reading itself runs without phrase vectors (the fixture data dir has none)."""
    from papersift.search import service as service_module

    calls: list[tuple] = []
    real = service_module.read_query

    def read_query(text, lexicon, encoder=None, bridge=None, doc_freq=None, phrases=None, *rest):
        calls.append((encoder, bridge, phrases))
        return real(text, lexicon, encoder, bridge, doc_freq, None, *rest)
    monkeypatch.setattr(service_module, "read_query", read_query)
    monkeypatch.setattr(service_module, "phrase_bridge_for", lambda data_dir: PHRASES)
    return calls


def test_a_chinese_description_is_read_once_without_bridge_and_neighbours(hybrid_dir, reads):
    """A hybrid page reads a description once, by the lexicon and the dictionary: the dense side,
    the translated list and the page's keyword side share the reading; the term bridge embeds
    none of its words and no term of it is looked up among the phrase vectors (those were most
    of a Chinese page's time). The model embeds the query and the words searched, nothing else."""
    service, encoder, retrievers = hybrid_service(hybrid_dir)
    texts: list[str] = []
    recording(encoder, texts)
    response = service.search(SearchRequest(query=LONG_QUERY, mode="hybrid", with_facets=False))
    assert response.total > 0
    assert reads == [(None, None, None)]
    reading = retrievers["hybrid"].reading_for(LONG_QUERY)
    assert reading.extra and sorted(texts) == sorted([LONG_QUERY, reading.searched])


def test_semantic_mode_reads_a_description_through_the_term_bridge(hybrid_dir, reads):
    # it ranks by the embedding alone, which the bridge's words serve better (docs/semantic.md)
    service, _, retrievers = hybrid_service(hybrid_dir)
    service.search(SearchRequest(query=LONG_QUERY, mode="semantic", with_facets=False))
    dense = retrievers["semantic"].inner
    assert dense.bridge is not None
    assert reads == [(dense.encoder, dense.bridge, PHRASES)]


def test_keyword_mode_reads_a_description_with_the_phrase_neighbours(hybrid_dir, reads):
    service, _, _ = hybrid_service(hybrid_dir)
    service.search(SearchRequest(query=LONG_QUERY, mode="keyword", with_facets=False))
    assert reads == [(None, None, PHRASES)]


def test_a_chinese_term_is_still_read_with_the_term_bridge_and_the_neighbours(hybrid_dir, reads):
    service, _, retrievers = hybrid_service(hybrid_dir)
    service.search(SearchRequest(query="图神经网络", mode="hybrid", with_facets=False))
    dense = retrievers["hybrid"].inner.dense
    assert dense.bridge is not None
    assert (dense.encoder, dense.bridge, PHRASES) in reads


def test_a_descriptions_own_embedding_runs_while_it_is_read(hybrid_dir, monkeypatch):
    """The reading (Python) and the query's embedding (the encoder, outside the GIL) overlap:
    the reading waits here until the encoder has been given the query, which a request that
    embeds only after reading never does."""
    import threading

    service, encoder, _ = hybrid_service(hybrid_dir)
    embedding = threading.Event()
    texts: list[str] = []
    recording(encoder, texts, before=embedding.set)
    real = service.reading_of
    overlapped: list[bool] = []

    def reading_of(text, *args, **kwargs):
        overlapped.append(embedding.wait(timeout=5))
        return real(text, *args, **kwargs)
    monkeypatch.setattr(service, "reading_of", reading_of)
    response = service.search(SearchRequest(query=LONG_QUERY, mode="hybrid", with_facets=False))
    assert response.total > 0
    assert overlapped == [True]
    assert texts[0] == LONG_QUERY


def test_a_descriptions_embeddings_are_running_when_its_reading_returns(hybrid_dir, monkeypatch):
    """Both of a description's embeddings (its own, its words') are in the model by the time the
    request thread goes on: submitted and left, the encoder thread began only once the request
    thread blocked, after the keyword searches meant to hide the words' embedding (the
    interpreter's lock: semantic.started_query_encoding). Here the encoder thread needs 50 ms to
    get a slot, so a request that does not wait for it has gone on before either began."""
    import threading
    import time

    from papersift.search import semantic

    class SlowSlot:
        def __init__(self):
            self.slot = threading.BoundedSemaphore(1)

        def __enter__(self):
            time.sleep(0.05)
            self.slot.acquire()

        def __exit__(self, *exc):
            self.slot.release()

    monkeypatch.setattr(semantic, "ENCODER_SLOTS", SlowSlot())
    monkeypatch.setattr(semantic, "HANDOFF_WAIT_S", 30.0, raising=False)
    _, encoder, retrievers = hybrid_service(hybrid_dir)
    entered: list[str] = []
    recording(encoder, entered)  # a text is recorded as the model is given it
    reading = retrievers["hybrid"].inner.dense.reading_for(LONG_QUERY)
    assert reading.searched and entered == [LONG_QUERY, reading.searched]


def test_e5_reads_a_bounded_number_of_a_descriptions_words_tokens(hybrid_dir):
    """The words a description is searched as (~60 tokens) are embedded from their first
    WORDS_MAX_TOKENS tokens, the model's end token kept; the description itself is read whole."""
    import numpy as np

    from hybrid_service import unit_vector
    from papersift.search.semantic import WORDS_MAX_TOKENS

    _, encoder, retrievers = hybrid_service(hybrid_dir)
    given: list[list[str]] = []

    def tokenize(inputs):  # a stand-in: one token a character, then the end token
        return [[*text, "</s>"] for text in inputs]

    def encode_token_ids(token_lists):
        given.extend(list(ids) for ids in token_lists)
        return np.stack([unit_vector("".join(ids)) for ids in token_lists])
    encoder.tokenize, encoder.encode_token_ids = tokenize, encode_token_ids
    reading = retrievers["hybrid"].inner.dense.reading_for(LONG_QUERY)
    assert len(reading.searched) + 1 > WORDS_MAX_TOKENS  # the words are longer than the bound
    assert given == [[*LONG_QUERY, "</s>"], [*reading.searched[:WORDS_MAX_TOKENS - 1], "</s>"]]
