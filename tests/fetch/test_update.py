"""papersift update end to end against the local fake OpenReview and arXiv OAI-PMH services:
fetch, ingest, index, (embed), then the feeds show the new papers; resumed after a failure or a
kill without duplicates; locked against a second run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import date
from pathlib import Path

import feedparser
import orjson
import pytest
from fastapi.testclient import TestClient
from tests.fetch.conftest import arxiv_oai_route, openreview_route
from typer.testing import CliRunner

from papersift import run_locks
from papersift.cli import app as cli_app
from papersift.fetch.http import FetchError, RetryPolicy
from papersift.fetch.update import LOCK_FILE, UpdateError, UpdateRunning, UpdateState, read_jobs, run_update
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEST_HOSTS

DAY = date(2026, 11, 30)
NO_RETRY = RetryPolicy(retries=0, backoff=0.001)
NOT_EMBEDDED = "embedding left out of this test"
ARXIV_IDS = {"arXiv-2017-1703.03400", "arXiv-2017-1706.02216", "arXiv-2017-1706.03762"}


@pytest.fixture()
def services(fake_service):
    return fake_service(openreview_route), fake_service(arxiv_oai_route)


def write_config(path: Path, openreview, arxiv) -> Path:
    path.write_text(f'''
[[openreview]]
venue = "colm.org/COLM/2024/Conference"
base_url = "{openreview.base_url}"
delay = 0

[[arxiv]]
set = "cs"
from = "2023-08-01"
base_url = "{arxiv.base_url}/oai"
delay = 0
''')
    return path


def update(data_dir: Path, config: Path, **options):
    return run_update(data_dir, read_jobs(config), today=DAY, retry=NO_RETRY,
                      embed=options.pop("embed", lambda _: NOT_EMBEDDED), **options)


def step(report, name: str) -> dict:
    return next(item for item in report.to_dict()["steps"] if item["step"] == name)


def paper_ids(data_dir: Path) -> list[str]:
    store = Store(data_dir, readonly=True)
    try:
        return [row[0] for row in store.read("SELECT id FROM papers")]
    finally:
        store.close()


def test_an_update_fetches_ingests_indexes_and_the_feeds_show_the_new_papers(services, tmp_path):
    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    lines: list[str] = []
    report = update(tmp_path / "data", config, log=lines.append)
    assert not report.resumed
    assert step(report, "arxiv:cs:fetch")["records"] == 6 and step(report, "arxiv:cs:fetch")["from"] == "2023-08-01"
    assert step(report, "arxiv:cs:ingest")["added"] == 5 and step(report, "arxiv:cs:ingest")["skipped"] == 1
    assert step(report, "openreview:colm.org/COLM/2024/Conference:ingest")["added"] == 2
    assert step(report, "index")["indexed"] == 7 and step(report, "embed")["skipped"] == NOT_EMBEDDED
    assert [line.split(":")[0] for line in lines] == ["openreview", "openreview", "arxiv", "arxiv", "index", "embed"]
    assert all(any(char.isdigit() for char in line) for line in lines[:5])  # each step logs its counts
    assert len(paper_ids(tmp_path / "data")) == 7
    with TestClient(create_app(tmp_path / "data", allowed_hosts=TEST_HOSTS)) as client:
        feed = feedparser.parse(client.get("/feeds/venue/arXiv").content)
        assert not feed.bozo and {entry.id.rsplit("/", 1)[1] for entry in feed.entries} >= ARXIV_IDS
        assert len(feed.entries) == 5
        searched = feedparser.parse(client.get("/feeds/search?q=attention&mode=keyword").content)
        assert "Attention is All you Need" in [entry.title for entry in searched.entries]
    assert UpdateState.load(tmp_path / "data").harvests == {"arxiv:cs": DAY.isoformat()}


def test_the_next_update_harvests_from_the_last_one_and_ingests_nothing_twice(services, tmp_path):
    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    update(tmp_path / "data", config)
    arxiv.requests.clear()
    report = update(tmp_path / "data", config)
    assert arxiv.requests[0][1]["from"] == DAY.isoformat()
    assert step(report, "arxiv:cs:ingest")["added"] == 0 and step(report, "arxiv:cs:ingest")["unchanged"] == 5
    assert step(report, "index")["indexed"] == 0
    ids = paper_ids(tmp_path / "data")
    assert len(ids) == len(set(ids)) == 7


def test_a_failed_update_resumes_at_its_first_unfinished_step(services, tmp_path):
    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    # The arXiv harvest's second page fails for good (no retries): OpenReview is done by then.
    real_route = arxiv.route
    arxiv.route = lambda path, query: (503, {}, b"down") if "resumptionToken" in query else real_route(path, query)
    with pytest.raises(FetchError):
        update(tmp_path / "data", config)
    state = UpdateState.load(tmp_path / "data")
    assert state.run["done"] == ["openreview:colm.org/COLM/2024/Conference:fetch",
                                 "openreview:colm.org/COLM/2024/Conference:ingest"]
    assert len(paper_ids(tmp_path / "data")) == 2 and state.harvests == {}
    arxiv.route = real_route
    openreview.requests.clear()
    arxiv.requests.clear()
    report = update(tmp_path / "data", config)
    assert report.resumed and openreview.requests == []  # done steps are not run again
    assert [query for _, query in arxiv.requests] == [{"verb": "ListRecords", "resumptionToken": "6960524|1001"}]
    assert step(report, "arxiv:cs:fetch")["resumed"] is True and step(report, "arxiv:cs:ingest")["added"] == 5
    ids = paper_ids(tmp_path / "data")
    assert len(ids) == len(set(ids)) == 7 and UpdateState.load(tmp_path / "data").run is None


def test_a_second_update_on_the_same_data_dir_stops_at_once(services, tmp_path):
    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    held = run_locks.hold(data_dir / LOCK_FILE)
    try:
        with pytest.raises(UpdateRunning, match="another 'papersift update' is running"):
            update(data_dir, config)
        result = CliRunner().invoke(cli_app, ["update", "--config", str(config), "--data-dir", str(data_dir)])
        assert result.exit_code == 1 and "another 'papersift update' is running" in result.output
    finally:
        run_locks.release(held, data_dir / LOCK_FILE)
    assert openreview.requests == [] and arxiv.requests == []


@pytest.mark.parametrize(("text", "problem"), [
    ("[[arxiv]]\nfrom = '2024-01-01'\n", "[[arxiv]] #1: needs set"),
    ("[[arxiv]]\nset = 'cs'\nfrom = 'last week'\n", "from must be a day"),
    ("[[openreview]]\nvenue = 'X'\npage = 3\n", "unknown key(s) page"),
    ("[[rss]]\nurl = 'x'\n", "unknown section(s) rss"),
    ("[[arxiv\n", "not valid TOML"),
])
def test_a_bad_config_is_one_line_naming_the_job(tmp_path, text, problem):
    path = tmp_path / "update.toml"
    path.write_text(text)
    with pytest.raises(UpdateError, match=problem.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        read_jobs(path)
    result = CliRunner().invoke(cli_app, ["update", "--config", str(path), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_the_cli_runs_the_jobs_and_reports_json(services, tmp_path):
    openreview, arxiv = services
    (tmp_path / "data").mkdir()
    write_config(tmp_path / "data" / "update.toml", openreview, arxiv)  # the default config place
    result = CliRunner().invoke(cli_app, ["update", "--data-dir", str(tmp_path / "data"), "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout[result.stdout.index("{"):])
    assert [item["step"] for item in report["steps"]][-2:] == ["index", "embed"]
    assert "not" in report["steps"][-1]["skipped"]  # core tier: no built model, nothing embedded
    assert len(paper_ids(tmp_path / "data")) == 7


@pytest.mark.drill
def test_an_update_killed_mid_way_finishes_when_run_again(services, tmp_path):
    """SIGKILL after its third step (the arXiv fetch), then the same command again."""
    openreview, arxiv = services
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    write_config(data_dir / "update.toml", openreview, arxiv)
    command = [sys.executable, "-m", "papersift", "update", "--data-dir", str(data_dir), "--json"]
    environment = {**os.environ, "PAPERSIFT_PAUSE_AT": "update-step-done:3",
                   "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2] / "src"), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(command, env=environment, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in process.stderr:
        if line.startswith("paused at update-step-done:3"):
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert UpdateState.load(data_dir).run["done"][-1] == "arxiv:cs:fetch"
    assert len(paper_ids(data_dir)) == 2
    arxiv.requests.clear()
    environment.pop("PAPERSIFT_PAUSE_AT")
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert arxiv.requests == []  # the fetched pages were kept: ingested without a new request
    ids = paper_ids(data_dir)
    assert len(ids) == len(set(ids)) == 7 and UpdateState.load(data_dir).run is None


@pytest.mark.models
def test_an_update_embeds_the_new_papers_for_semantic_search(services, tmp_path):
    from papersift.search.service import SearchService
    from papersift.search.types import SearchRequest

    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    report = run_update(tmp_path / "data", read_jobs(config), today=DAY, retry=NO_RETRY)
    assert step(report, "embed")["embedded"] >= 7 and step(report, "embed")["covered"] == 7
    service = SearchService(tmp_path / "data")
    response = service.search(SearchRequest(query="learning to learn quickly from few examples", mode="semantic", size=3))
    assert "arXiv-2017-1703.03400" in [hit.paper.id for hit in response.hits]  # MAML, by meaning only


def test_an_update_sends_the_digest_of_a_saved_search_as_its_last_step(services, smtp_server, tmp_path):
    from papersift.follow.saved import SavedQuery
    from papersift.follow.state import Following

    inbox, port = smtp_server
    openreview, arxiv = services
    config = write_config(tmp_path / "update.toml", openreview, arxiv)
    Following.open(tmp_path / "data").save_search("arXiv", SavedQuery(venue=("arXiv",), sort="newest", mode="keyword"))
    env = {"PAPERSIFT_SMTP_HOST": "127.0.0.1", "PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_SMTP_STARTTLS": "0",
           "PAPERSIFT_DIGEST_TO": "reader@example.org"}
    report = update(tmp_path / "data", config, env=env)
    assert report.to_dict()["steps"][-1] == {"step": "digest", "papers": 5, "delivered": 1, "waiting": 0}
    assert len(inbox.messages) == 1
    body = inbox.messages[0][1].get_body(("plain",)).get_content()
    assert "Attention is All you Need" in body and body.count("\n- ") == 5
    again = update(tmp_path / "data", config, env=env)
    assert step(again, "digest") == {"step": "digest", "papers": 0, "delivered": 0, "waiting": 0}
    assert len(inbox.messages) == 1
    assert "digest" not in [item["step"] for item in update(tmp_path / "data", config, env={}).to_dict()["steps"]]
