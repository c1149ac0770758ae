"""`papersift serve --accounts` as a real uvicorn process: the per-address login limit counts the
address a request came from, whatever X-Forwarded-For it carries, unless the operator names the
proxy (`--forwarded-allow-ips`), whose forwarded address then counts (issue 29, item 1)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path

import httpx
import pytest

from papersift.accounts.ratelimit import MAX_FAILURES_PER_ADDRESS
from papersift.accounts.users import Accounts
from served_papers import build_served_data_dir, wait_until_listening
from smtp_server import free_port

pytestmark = pytest.mark.drill
SRC = Path(__file__).resolve().parents[2] / "src"
# The CLI itself, with argon2 at its cheapest cost (tests/conftest.py does the same in process).
LAUNCHER = ("import sys; from argon2 import PasswordHasher, profiles; from papersift.accounts import passwords; "
            "cheap = PasswordHasher.from_parameters(profiles.CHEAPEST); passwords.hasher = lambda: cheap; "
            "from papersift.cli import main; sys.argv[0] = 'papersift'; main()")
PASSWORD = "alice-password-1"


@pytest.fixture(scope="module")
def accounts_data_dir(sample_records, tmp_path_factory) -> Path:
    data_dir = build_served_data_dir(tmp_path_factory.mktemp("proxy") / "data", sample_records[:50])
    Accounts.open(data_dir).add_user("alice", PASSWORD)
    return data_dir


@contextmanager
def served(data_dir: Path, *options: str) -> Iterator[httpx.Client]:
    """`papersift serve --accounts` on a free loopback port; a client for it."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "FORWARDED_ALLOW_IPS"}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    server = subprocess.Popen([sys.executable, "-c", LAUNCHER, "serve", "--data-dir", str(data_dir), "--accounts",
                               "--port", str(port), *options], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until_listening(server, port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            yield client
    finally:
        server.terminate()
        server.wait(timeout=30)


def login(client: httpx.Client, name: str, password: str, forwarded_for: str) -> int:
    form = client.get("/login")
    assert form.status_code == 200
    found = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert found, "the login page has no CSRF token"
    answer = client.post("/login", data={"csrf": unescape(found.group(1)), "name": name, "password": password,
                                         "next": "/library"}, headers={"X-Forwarded-For": forwarded_for})
    return answer.status_code


def test_forwarded_for_is_ignored_by_default(accounts_data_dir):
    """22 wrong logins, each naming another address in X-Forwarded-For (and another account, so
    only the per-address limit can stop them): past 20 the real address is refused, and so is
    then the right password."""
    with served(accounts_data_dir) as client:
        statuses = [login(client, f"guess{index}", "wrong-password", f"10.0.0.{index}") for index in range(22)]
        assert statuses == [401] * MAX_FAILURES_PER_ADDRESS + [429, 429]
        assert login(client, "alice", PASSWORD, "10.0.0.200") == 429


def test_forwarded_for_counts_when_the_proxy_is_named(accounts_data_dir):
    """With the proxy (here 127.0.0.1) named, the forwarded address is the client's: guesses from
    one forwarded address are limited, others are not, and another address still logs in."""
    with served(accounts_data_dir, "--forwarded-allow-ips", "127.0.0.1") as client:
        spread = [login(client, f"spread{index}", "wrong-password", f"10.0.1.{index}") for index in range(22)]
        assert spread == [401] * 22
        same = [login(client, f"same{index}", "wrong-password", "10.0.2.1") for index in range(MAX_FAILURES_PER_ADDRESS + 1)]
        assert same == [401] * MAX_FAILURES_PER_ADDRESS + [429]
        assert login(client, "alice", PASSWORD, "10.0.2.2") == 303
