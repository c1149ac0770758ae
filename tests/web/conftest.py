"""Page tests: the real service over a real indexed slice, served by uvicorn for the browser."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import uvicorn
from fastapi.testclient import TestClient

from papersift.api import create_app
from served_papers import build_served_data_dir


@pytest.fixture(scope="session")
def served_data_dir(sample_records, tmp_path_factory):
    return build_served_data_dir(tmp_path_factory.mktemp("served_web"), sample_records)


@pytest.fixture(scope="session")
def app(served_data_dir):
    return create_app(served_data_dir)


@pytest.fixture(scope="session")
def client(app):
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def live_server(app):
    """The app on a free loopback port, in a thread of this process."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    listener.close()
