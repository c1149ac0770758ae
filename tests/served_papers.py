"""A small served data dir for the API and page tests: real papers plus hostile ones,
indexed with the keyword engine's own build function."""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import uvicorn
from fastapi.testclient import TestClient

from papersift.api.security import LOOPBACK_HOSTS
from papersift.index import lexical, termlexicon
from papersift.record import paper_from_dict
from papersift.server import create_app
from papersift.store import Store
from tiers import CHROMIUM as CHROMIUM  # re-exported; $PAPERSIFT_CHROMIUM overrides

# Starlette's TestClient sends `Host: testserver`; the apps under test accept it beside the
# loopback names (a served app only accepts the names of its bind address).
TEST_HOSTS = (*LOOPBACK_HOSTS, "testserver")
XSS_TITLE = "<img src=x onerror=alert(1)>"
HOSTILE_ID = "TEST-2024-hostile"
MANY_AUTHORS_ID = "TEST-2023-many-authors"


def hostile_records() -> list[dict]:
    """Papers whose text must come out as text: HTML, a javascript: link, LaTeX, 15 authors."""
    return [
        {
            "id": HOSTILE_ID, "title": XSS_TITLE, "venue": "ICLR", "year": 2024, "status": "Oral",
            "authors": ["Mallory <b>Evil</b>", "Eve \"quote\" O'Hare"],
            "abstract": "Transformers <script>alert('abstract')</script> with $O(n^2)$ & <b>bold</b> attention claims.",
            "pdf": "javascript:alert('pdf')", "url": "https://openreview.net/forum?id=hostile",
            "area": "Deep Learning", "subarea": "Attention Mechanisms",
        },
        {
            "id": MANY_AUTHORS_ID, "title": "Scaling transformers with many collaborators", "venue": "NeurIPS",
            "year": 2023, "status": "Poster", "authors": [f"Author Number{index}" for index in range(1, 16)],
            "abstract": "We study how transformers scale when fifteen authors train them together on long sequences.",
            "pdf": "https://example.org/many.pdf",
        },
    ]


def build_served_data_dir(data_dir: Path, sample_records: list[dict]) -> Path:
    """The records plus the hostile ones, stored and indexed as the service builds them. Many
    tests want the same one: it is built once per set of records as a template (in a temporary
    folder) and copied (seconds of store + index build saved per test; the copy is a whole data
    dir of its own, the test may write to it)."""
    records = [*sample_records, *hostile_records()]

    def build(template: Path) -> None:
        store = Store(template)
        store.upsert([paper_from_dict(record) for record in records])
        store.close()
        lexical.build(template)
        termlexicon.build_for_store(template)

    key = hashlib.sha1(orjson.dumps(records, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return copy_data_dir(built_once(template_root() / key, build), data_dir)


@contextmanager
def writable_client(records: list[dict], data_dir: Path, token: str, **client_options) -> Iterator[tuple[TestClient, Path]]:
    """(client, data dir) of an app with writes on (write token `token`) over the records' served
    data dir, the client signed in with the token as a browser is (/signin: its pages carry the
    change forms); a 500 comes back as a response the test can see."""
    data_dir = build_served_data_dir(data_dir, records)
    app = create_app(data_dir, enable_writes=True, write_token=token, allowed_hosts=TEST_HOSTS)
    with TestClient(app, raise_server_exceptions=False, **client_options) as client:
        assert client.get("/signin", params={"token": token}, follow_redirects=False).status_code == 303
        yield client, data_dir


def built_once(template: Path, build: Callable[[Path], None]) -> Path:
    """`template`, built by `build` unless an earlier call finished it (marked complete last, so
    a build cut short is redone). The pytest-xdist workers of one run share templates: a lock
    beside the template makes the others wait for the one that builds it."""
    template.parent.mkdir(parents=True, exist_ok=True)
    with open(template.with_name(template.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (template / ".complete").exists():
            shutil.rmtree(template, ignore_errors=True)
            template.mkdir(parents=True)
            build(template)
            (template / ".complete").touch()
    return template


TEMPLATES_ENV = "PAPERSIFT_TEST_TEMPLATES"


def template_root() -> Path:
    """Where this test run keeps its templates: one folder that tests/conftest.py makes before
    the pytest-xdist workers start (they inherit its name) and removes when the run ends."""
    return Path(os.environ.get(TEMPLATES_ENV) or _own_template_root())


@functools.cache
def _own_template_root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="papersift-templates-"))
    atexit.register(shutil.rmtree, root, True)
    return root


def copy_data_dir(source: Path, target: Path) -> Path:
    """A closed data dir copied whole (the store with its WAL, the index generations, the lexicon)."""
    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".lock", ".complete"))
    return target


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
# Injected before any page script (Playwright init scripts are not subject to the page's
# CSP): every Content-Security-Policy violation the page reports lands in window.__csp.
CSP_WATCH = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "(e) => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + e.sourceFile));")


def watched_page(context) -> tuple[Any, list[str]]:
    """A new page of `context` and the list its uncaught script errors land in."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


@contextmanager
def serve_in_thread(app) -> Iterator[str]:
    """The app on a free loopback port, in a thread of this process; yields its base URL."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


def wait_until_listening(server: subprocess.Popen, port: int, timeout: float = 60) -> None:
    """Return once the server process accepts connections on the loopback port; fail (with its
    stderr) if it exits or does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        assert server.poll() is None, server.stderr.read().decode()[-2000:] if server.stderr else "the server exited"
        assert time.monotonic() < deadline, "the server did not start"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)  # polling for the listening socket
