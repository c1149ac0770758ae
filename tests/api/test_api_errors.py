"""Every bad input gets a 4xx JSON error that names the problem; never a 500."""

from __future__ import annotations

import pytest

from papersift.api.params import MAX_EXPORT_IDS
from papersift.config import MAX_PAGE, MAX_PAGE_SIZE, MAX_QUERY_CHARS
from served_papers import HOSTILE_ID

BAD_REQUESTS = [
    # (url, params, status, code, words the message must contain)
    ("/api/search", {"q": "x", "colour": "red"}, 422, "invalid_parameter", ["unknown parameter 'colour'"]),
    ("/api/search", {"q": "x", "page": 10**9}, 422, "invalid_parameter", ["page", str(MAX_PAGE), "1000000000"]),
    ("/api/search", {"q": "x", "size": 10**6}, 422, "invalid_parameter", ["size", str(MAX_PAGE_SIZE), "1000000"]),
    ("/api/search", {"q": "x", "page": 0}, 422, "invalid_parameter", ["page", "greater than or equal to 1"]),
    ("/api/search", {"q": "x", "page": "two"}, 422, "invalid_parameter", ["page", "integer", "'two'"]),
    ("/api/search", {"q": "x", "size": -5}, 422, "invalid_parameter", ["size"]),
    ("/api/search", {"q": "x", "mode": "psychic"}, 422, "invalid_parameter", ["mode", "'hybrid', 'keyword' or 'semantic'"]),
    ("/api/search", {"q": "x", "sort": "random"}, 422, "invalid_parameter", ["sort", "'relevance'"]),
    ("/api/search", {"q": "x", "lang": "fr"}, 422, "invalid_parameter", ["lang", "'zh' or 'en'"]),
    ("/api/search", {"q": "x", "year_from": 3000}, 422, "invalid_parameter", ["year_from", "2100"]),
    ("/api/search", {"q": "x", "year_from": 2022, "year_to": 2020}, 422, "invalid_parameter", ["year_from (2022) is after year_to (2020)"]),
    ("/api/search", {"q": "x" * (MAX_QUERY_CHARS + 1)}, 422, "invalid_parameter", ["q", f"at most {MAX_QUERY_CHARS} characters"]),
    ("/api/search", {"q": "\"unbalanced quote"}, 400, "query_syntax", ["malformed query", "quote", "character 1"]),
    ("/api/search", {"q": "graph OR"}, 400, "query_syntax", ["malformed query", "OR needs a term on both sides"]),
    ("/api/search", {"q": "year:2024..2020"}, 400, "query_syntax", ["malformed query", "reversed"]),
    ("/api/search", {"q": "year:20x0..abc"}, 400, "query_syntax", ["malformed query", "year"]),
    ("/api/papers/NO-SUCH-PAPER", {}, 404, "not_found", ["NO-SUCH-PAPER"]),
    ("/api/papers/NO-SUCH-PAPER/similar", {}, 404, "not_found", ["NO-SUCH-PAPER"]),
    (f"/api/papers/{HOSTILE_ID}/similar", {"size": 10**6}, 422, "invalid_parameter", ["size"]),
    (f"/api/papers/{HOSTILE_ID}", {"verbose": "1"}, 422, "invalid_parameter", ["unknown parameter 'verbose'"]),
    ("/api/facets", {"page": 2}, 422, "invalid_parameter", ["unknown parameter 'page'"]),
    ("/api/export", {"ids": HOSTILE_ID, "format": "docx"}, 422, "invalid_parameter",
     ["format", "'bibtex', 'json', 'csv', 'ris' or 'csl-json'"]),
    ("/api/export", {"ids": f"{HOSTILE_ID},NOPE-1"}, 404, "not_found", ["NOPE-1"]),
    ("/api/export", {"ids": ",".join(f"id{n}" for n in range(MAX_EXPORT_IDS + 1))}, 422, "invalid_parameter",
     [f"at most {MAX_EXPORT_IDS} ids"]),
    ("/api/no-such-endpoint", {}, 404, "not_found", ["/api/no-such-endpoint"]),
]


@pytest.mark.parametrize(("url", "params", "status", "code", "words"), BAD_REQUESTS,
                         ids=[f"{url}-{'-'.join(map(str, params))}" for url, params, *_ in BAD_REQUESTS])
def test_bad_input_gets_a_json_error_that_says_what_is_wrong(client, url, params, status, code, words):
    response = client.get(url, params=params)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["error"] == code
    for word in words:
        assert word in body["message"], (word, body["message"])


def test_every_problem_is_listed_with_its_parameter(client):
    body = client.get("/api/search", params={"page": 10**9, "size": 10**6, "colour": "red"}).json()
    assert {detail["param"] for detail in body["details"]} == {"page", "size", "colour"}


def test_query_syntax_error_gives_the_position(client):
    body = client.get("/api/search", params={"q": "graph \"neural"}).json()
    assert body["details"][0]["position"] == 6


def test_wrong_method_is_405_json(client):
    response = client.post("/api/search", json={})
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"


HOSTILE_QUERIES = ["", " ", "-", "OR", "\"", "((", "year:", "author:", "a" * MAX_QUERY_CHARS, "\x00\x01\x1f",
                   "<script>alert(1)</script>", "大模型 微调 LoRA", "$\\ell_1$ {}", "NOT AND OR", "venue:\"\""]


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=range(len(HOSTILE_QUERIES)))
def test_hostile_queries_never_cause_a_server_error(client, query):
    response = client.get("/api/search", params={"q": query})
    assert response.status_code in (200, 400, 422), response.text
    assert response.headers["content-type"] == "application/json"
