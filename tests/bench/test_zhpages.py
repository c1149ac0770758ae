"""bench zhpages: Chinese dev-term pages against their English twins, each language on a fresh server."""

from __future__ import annotations

import contextlib

import httpx
import orjson
import pytest

from papersift.bench import zhpages
from papersift.bench.zhpages import dev_terms, markdown, run, served, summary, time_terms


def write_terms(root, pairs: list[tuple[str, str]]):
    folder = root / "zhterms"
    folder.mkdir(parents=True)
    lines = []
    for at, (zh, en) in enumerate(pairs):
        lines += [orjson.dumps({"qid": f"q{at}-zh", "text": zh, "lang": "zh"}),
                  orjson.dumps({"qid": f"q{at}-en", "text": en, "lang": "en"})]
    (folder / "queries_dev.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root


class StandIn:
    """A server that answers a Chinese query in 6 ms and any other in 2 ms (its Server-Timing)."""

    def __init__(self, asked: list):
        self.asked = asked

    def get(self, url, params=None):
        self.asked.append((url, params["q"], params["mode"]))
        spent = 6.0 if any("\u4e00" <= character <= "\u9fff" for character in params["q"]) else 2.0
        return httpx.Response(200, headers={"server-timing": f"app;dur={spent}"}, request=httpx.Request("GET", url))


def test_each_language_and_target_gets_a_server_of_its_own_and_each_term_is_asked_once(tmp_path):
    shared = write_terms(tmp_path, [("反向传播", "backpropagation"), ("注意力机制", "attention mechanism"),
                                    ("图神经网络", "graph neural network")])
    servers: list[list] = []

    @contextlib.contextmanager
    def serve(data_dir):
        servers.append([])
        yield StandIn(servers[-1])

    report = run(tmp_path / "data", ("keyword", "hybrid"), ("page", "api"), serve=serve, shared=shared)
    assert len(servers) == 2 * 2 * 2  # modes x targets x languages
    for asked in servers:  # the warm-up queries, then every term of one language once, in order
        assert [query for _, query, _ in asked[:2]] == list(zhpages.WARM_UP_QUERIES)
        terms = [query for _, query, _ in asked[2:]]
        assert terms in (["反向传播", "注意力机制", "图神经网络"], ["backpropagation", "attention mechanism", "graph neural network"])
        assert len({(url, mode) for url, _, mode in asked}) == 1
    first = report["runs"][0]
    assert (first["mode"], first["target"], first["terms"]) == ("keyword", "page", 3)
    assert first["zh"]["p50"] == 6.0 and first["en"]["p50"] == 2.0 and first["zh_over_en"] == {"p50": 3.0, "p99": 3.0}
    assert servers[0][0][0] == "/" and servers[2][0][0] == "/api/search"
    assert "| keyword | page | 3 | 6.0 | 6.0 | 6.0 | 2.0 | 2.0 | 2.0 | 3.0× | 3.0× |" in markdown(report)


def test_limit_takes_the_first_terms_of_each_language(tmp_path):
    shared = write_terms(tmp_path, [("反向传播", "backpropagation"), ("注意力机制", "attention mechanism")])
    asked: list = []

    @contextlib.contextmanager
    def serve(data_dir):
        yield StandIn(asked)

    run(tmp_path / "data", ("keyword",), ("api",), limit=1, serve=serve, shared=shared)
    assert [query for _, query, _ in asked if query not in zhpages.WARM_UP_QUERIES] == ["反向传播", "backpropagation"]
    assert dev_terms("en", shared) == ["backpropagation", "attention mechanism"]


def test_an_error_answer_stops_the_bench_with_the_url():
    class Failing:
        def get(self, url, params=None):
            return httpx.Response(500, text="boom", request=httpx.Request("GET", "http://x" + url))

    with pytest.raises(RuntimeError, match=r"500.*boom"):
        time_terms(Failing(), "page", ["反向传播"], "keyword")


def test_summary_percentiles():
    assert summary([float(ms) for ms in range(1, 101)]) == {"p50": 50.5, "p95": 95.0, "p99": 99.0, "mean": 50.5}


def test_served_starts_a_real_server_that_answers_with_its_own_time_and_stops_it(served_data_dir):
    with served(served_data_dir) as client:
        spent = time_terms(client, "page", ["graph"], "keyword")
        base = str(client.base_url)  # type: ignore[attr-defined]
    assert len(spent) == 1 and spent[0] > 0
    with pytest.raises(httpx.HTTPError):  # stopped: nothing answers on its port any more
        httpx.get(base + "/healthz", timeout=2)
