"""Security headers, the Host check, HEAD, the access log, the token length, short 422s."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from papersift.api.errors import MAX_LISTED_PROBLEMS
from papersift.api.security import ANY_HOST, LOOPBACK_HOSTS, allowed_hosts_for
from papersift.server import create_app
from served_papers import HOSTILE_ID


@pytest.mark.parametrize("path", ["/", "/?q=learning", f"/paper/{HOSTILE_ID}", "/topics", "/topics/map",
                                  "/api/search?q=learning", "/api/no-such-route", "/static/style.css",
                                  "/openapi.json"])
def test_every_answer_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self';" in policy
    assert "unsafe-inline" not in policy


def test_only_the_api_docs_may_run_their_inline_script(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert "script-src 'self' 'unsafe-inline'" in response.headers["content-security-policy"]


@pytest.mark.parametrize("host", ["evil.example", "localhost.evil.example", "127.0.0.2.nip.io", ""])
def test_a_foreign_host_header_is_refused(app, host):
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.get("/api/search", params={"q": "learning"}, headers={"host": host})
    assert response.status_code == 400 and "learning" not in response.text


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST"])
def test_loopback_host_headers_are_answered(app, host):
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/api/facets", headers={"host": host}).status_code == 200


@pytest.mark.parametrize(("bind", "extra", "expected"), [
    ("127.0.0.1", (), list(LOOPBACK_HOSTS)),
    ("localhost", (), list(LOOPBACK_HOSTS)),
    ("::1", (), list(LOOPBACK_HOSTS)),
    ("0.0.0.0", (), [ANY_HOST]),
    ("0.0.0.0", ("Papers.Example.org",), [*LOOPBACK_HOSTS, "papers.example.org"]),
    ("192.168.1.5", (), [*LOOPBACK_HOSTS, "192.168.1.5"]),
    ("fe80::1", (), [*LOOPBACK_HOSTS, "[fe80::1]"]),
])
def test_the_allowed_hosts_follow_the_bind_address(bind, extra, expected):
    assert allowed_hosts_for(bind, extra) == expected


def test_the_apps_default_is_the_loopback_only(served_data_dir):
    with TestClient(create_app(served_data_dir)) as client:  # TestClient's Host: testserver
        assert client.get("/api/facets").status_code == 400
    with TestClient(create_app(served_data_dir), base_url="http://localhost:8000") as client:
        assert client.get("/api/facets").status_code == 200


@pytest.mark.parametrize("path", ["/", "/api/search?q=learning", f"/api/papers/{HOSTILE_ID}", "/static/app.js"])
def test_head_is_answered_like_get_without_a_body(client, path):
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


def test_the_access_log_names_failed_auth_but_not_queries_or_tokens(client, caplog):
    with caplog.at_level(logging.INFO, logger="papersift.access"):
        client.get("/api/search", params={"q": "secret-search-words"})
        client.post("/api/papers", json=[], headers={"Authorization": "Bearer the-token-itself-1234"})
        client.get("/api/papers/x%0Aforged 200")
    lines = [record.getMessage() for record in caplog.records if record.name == "papersift.access"]
    assert len(lines) == 3
    assert "GET /api/search 200" in lines[0] and "secret-search-words" not in " ".join(lines)
    refused = [record for record in caplog.records if "auth failed" in record.getMessage()]
    assert len(refused) == 1 and refused[0].levelno == logging.WARNING and "POST /api/papers 403" in refused[0].getMessage()
    assert "the-token-itself" not in " ".join(lines)
    assert "\n" not in lines[2] and "x\\nforged" in lines[2]


@pytest.mark.parametrize("token", ["", "short", "fifteen-chars!!"])
def test_a_short_write_token_is_refused(served_data_dir, token):
    with pytest.raises(ValueError, match=r"write_token|16 characters"):
        create_app(served_data_dir, enable_writes=True, write_token=token)


def test_a_422_lists_at_most_20_problems_and_counts_the_rest(client):
    query = "&".join(f"p{index}=1" for index in range(1500))
    response = client.get("/api/search?q=learning&" + query)
    assert response.status_code == 422
    body = response.json()
    assert len(body["details"]) == MAX_LISTED_PROBLEMS
    assert body["message"].endswith("; and 1,480 more problems")
    assert len(response.content) < 5000
