"""papersift serve / quickstart / bench web, with uvicorn.run replaced by a recorder."""

from __future__ import annotations

import gzip
import sys

import orjson
import pytest
import uvicorn
from typer.testing import CliRunner

from papersift.cli import app
from papersift.index import lexical
from papersift.store import Store

runner = CliRunner()


@pytest.fixture()
def served(monkeypatch):
    """What uvicorn.run was asked to serve (no server is started)."""
    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda server_app, **options: calls.append({"app": server_app, **options}))
    return calls


@pytest.fixture()
def corpus_dir(sample_records, tmp_path):
    folder = tmp_path / "ml_papers"
    folder.mkdir()
    with gzip.open(folder / "papers.jsonl.gz", "wb") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in sample_records[:200]))
    return folder


def test_quickstart_ingests_indexes_and_serves_on_loopback(corpus_dir, tmp_path, served):
    data_dir = tmp_path / "data"
    result = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir)])
    assert result.exit_code == 0, result.output
    assert Store(data_dir, readonly=True).count() == 200
    assert lexical.current_generation(data_dir) is not None
    assert served[0]["host"] == "127.0.0.1" and served[0]["port"] == 8000
    assert (data_dir / "embed.log").exists()  # papers were being embedded in the background while it served
    assert "stand: /status, on this machine" in " ".join(result.output.split())  # the operator's page is named
    again = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-serve"])
    assert again.exit_code == 0 and "skipping ingest" in " ".join(again.output.split()) and len(served) == 1


def test_quickstart_hands_this_browser_a_sign_in_link_so_the_library_works(corpus_dir, tmp_path, served, monkeypatch):
    """Issue 28 item 3: the quickstart server's results had no library controls (read-only).
    It now runs with writes on and a token of its own, printed once as a sign-in link."""
    import re

    from fastapi.testclient import TestClient

    monkeypatch.delenv("PAPERSIFT_WRITE_TOKEN", raising=False)
    data_dir = tmp_path / "data"
    result = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-embed"])
    assert result.exit_code == 0, result.output
    served_app = served[0]["app"]
    assert served_app.state.settings.enable_writes and len(served_app.state.settings.write_token) >= 24
    links = re.findall(r"http://127\.0\.0\.1:8000(/signin\?token=\S+)", result.output)
    assert links == [f"/signin?token={served_app.state.settings.write_token}"]
    with TestClient(served_app, base_url="http://127.0.0.1:8000", follow_redirects=False) as browser:
        assert browser.get(links[0]).status_code == 303
        page = browser.get("/", params={"q": "learning", "mode": "keyword", "lang": "en"}).text
        assert 'class="marks-form"' in page and 'class="save-search"' in page and 'name="token"' not in page
    again = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--no-embed"])
    assert again.exit_code == 0 and served[1]["app"].state.settings.write_token != served_app.state.settings.write_token


def test_serve_takes_host_and_port(corpus_dir, tmp_path, served):
    data_dir = tmp_path / "data"
    runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-serve"])
    result = runner.invoke(app, ["serve", "--data-dir", str(data_dir), "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert (served[0]["host"], served[0]["port"]) == ("0.0.0.0", 8123)
    assert served[0]["app"].state.settings.enable_writes is False


def test_serve_without_a_store_fails_with_a_hint(tmp_path, served):
    result = runner.invoke(app, ["serve", "--data-dir", str(tmp_path / "empty")])
    assert result.exit_code != 0 and "quickstart" in " ".join(result.output.split()) and not served


def test_enable_writes_needs_a_token(corpus_dir, tmp_path, served, monkeypatch):
    monkeypatch.delenv("PAPERSIFT_WRITE_TOKEN", raising=False)
    data_dir = tmp_path / "data"
    runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-serve"])
    refused = runner.invoke(app, ["serve", "--data-dir", str(data_dir), "--enable-writes"])
    assert refused.exit_code != 0 and "--write-token" in refused.output and not served
    short = runner.invoke(app, ["serve", "--data-dir", str(data_dir), "--enable-writes", "--write-token", "t" * 15])
    assert short.exit_code != 0 and not served
    assert short.output.strip().splitlines() == ["error: --write-token must be at least 16 characters (got 15)"]
    allowed = runner.invoke(app, ["serve", "--data-dir", str(data_dir), "--enable-writes", "--write-token", "t" * 16])
    assert allowed.exit_code == 0 and served[0]["app"].state.settings.enable_writes is True


@pytest.mark.drill
def test_serve_answers_only_its_own_host_names(corpus_dir, tmp_path, served):
    """A loopback server answers loopback Host headers only (DNS rebinding); --allowed-host adds names."""
    from fastapi.testclient import TestClient

    data_dir = tmp_path / "data"
    runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-serve"])
    assert runner.invoke(app, ["serve", "--data-dir", str(data_dir)]).exit_code == 0
    assert runner.invoke(app, ["serve", "--data-dir", str(data_dir), "--allowed-host", "papers.example.org"]).exit_code == 0
    loopback_only, with_name = served[0]["app"], served[1]["app"]
    for host, local, named in [("127.0.0.1:8000", 200, 200), ("localhost", 200, 200), ("[::1]:8000", 200, 200),
                               ("rebound.attacker.example", 400, 400), ("papers.example.org", 400, 200)]:
        for server_app, expected in ((loopback_only, local), (with_name, named)):
            with TestClient(server_app, base_url=f"http://{host}") as client:
                assert client.get("/api/facets").status_code == expected, (host, expected)


@pytest.mark.drill
def test_bench_web_writes_both_reports(corpus_dir, tmp_path):
    data_dir = tmp_path / "data"
    runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(corpus_dir), "--no-serve"])
    reports = tmp_path / "reports"
    result = runner.invoke(app, ["bench", "web", "--data-dir", str(data_dir), "--rounds", "1", "--reports-dir", str(reports), "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads((reports / "bench-web.json").read_bytes())
    assert report["papers"] == 200 and report["queries"] == 100
    assert {row["target"] for row in report["results"]} == {"page /", "api /api/search"}
    assert all(row["requests"] == 100 and 0 < row["p50_ms"] <= row["p95_ms"] <= row["max_ms"] for row in report["results"])
    assert "| page / | 100 |" in (reports / "bench-web.md").read_text()


@pytest.mark.models
@pytest.mark.drill
def test_quickstart_background_embedding_publishes_vectors_while_serving(corpus_dir, tmp_path, monkeypatch):
    """The server runs while a niced `papersift embed` child fills the vector index."""
    import time

    from papersift.index.vectors import current_generation
    from papersift.models import DEFAULT_MODEL

    data_dir = tmp_path / "data"
    seen = {}

    def serve_until_vectors(server_app, **options):
        deadline = time.monotonic() + 240
        while current_generation(data_dir, DEFAULT_MODEL) is None and time.monotonic() < deadline:
            time.sleep(0.5)
        seen["generation"] = current_generation(data_dir, DEFAULT_MODEL)

    monkeypatch.setattr(uvicorn, "run", serve_until_vectors)
    small = corpus_dir.parent / "small"
    small.mkdir()
    with gzip.open(corpus_dir / "papers.jsonl.gz", "rb") as source, gzip.open(small / "papers.jsonl.gz", "wb") as target:
        target.write(b"".join(source.readlines()[:20]))
    result = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--corpus", str(small)])
    assert result.exit_code == 0, result.output
    assert seen["generation"] is not None, (data_dir / "embed.log").read_text(errors="replace")[-2000:]


def test_the_background_chain_runs_its_commands_in_order_and_stops_at_the_first_failure(tmp_path, monkeypatch):
    # The chain process quickstart starts, run for real over commands that record themselves:
    # each runs after the last has ended, and a failing one ends the chain (its output in the log).
    from papersift.cli import serve_cmd

    ran = tmp_path / "ran"

    def step(name: str, code: int = 0) -> list[str]:
        code_text = f"open({str(ran)!r}, 'a').write({name!r} + ' '); print('step', {name!r}); raise SystemExit({code})"
        return [sys.executable, "-c", code_text]

    from papersift.background import Stage, read_status

    names = ["embed", "embed-english", "predict", "map"]
    monkeypatch.setattr(serve_cmd, "background_stages", lambda data_dir: [
        Stage(name, step(name, 3 if name == "predict" else 0)) for name in names])
    chain = serve_cmd._start_background_embed(tmp_path)
    assert chain.wait(timeout=120) == 3
    assert ran.read_text() == "embed embed-english predict "
    assert "step predict" in (tmp_path / "embed.log").read_text() and "step map" not in (tmp_path / "embed.log").read_text()
    status = read_status(tmp_path)
    assert status is not None and [status.state_of(name) for name in names] == ["done", "done", "failed", "stopped"]


def test_the_chain_process_goes_past_a_stage_that_is_not_required(tmp_path, monkeypatch):
    from papersift.background import Stage, read_status
    from papersift.cli import serve_cmd

    ran = tmp_path / "ran"
    record = "open({path!r}, 'a').write({name!r} + ' '); raise SystemExit({code})"
    monkeypatch.setattr(serve_cmd, "background_stages", lambda data_dir: [
        Stage("first topics", [sys.executable, "-c", record.format(path=str(ran), name="topics", code=1)], required=False),
        Stage("e5 vectors", [sys.executable, "-c", record.format(path=str(ran), name="embed", code=0)])])
    chain = serve_cmd._start_background_embed(tmp_path)
    assert chain.wait(timeout=120) == 0
    assert ran.read_text() == "topics embed "
    status = read_status(tmp_path)
    assert status is not None and [status.state_of(name) for name in ("first topics", "e5 vectors")] == ["failed", "done"]


@pytest.mark.models
@pytest.mark.drill
def test_quickstart_background_chain_is_embed_then_predict_then_map_commands_of_this_cli(tmp_path, monkeypatch):
    from papersift.cli import serve_cmd
    from papersift.cli.serve_cmd import background_stages
    from papersift.search.hybrid import ENGLISH_MODEL

    monkeypatch.setattr(serve_cmd, "_static_built", lambda: False)
    stages = background_stages(tmp_path)
    assert [stage.name for stage in stages] == ["first topics", "Chinese terms", "library features", "e5 vectors",
                                                "English vectors", "topics", "topic map"]
    first_topics, terms, features, embed, embed_english, predict, project = (stage.command for stage in stages)
    assert first_topics[-5:] == ["topics", "predict", "--data-dir", str(tmp_path), "--words-only"]
    assert terms[-3:] == ["index", "--data-dir", str(tmp_path)]  # the term lexicon and phrase vectors, after serving starts
    assert features[-4:] == ["library", "features", "--data-dir", str(tmp_path)]  # a tag's recommendations work early
    assert embed[-3:] == ["embed", "--data-dir", str(tmp_path)]
    assert embed_english[-5:] == ["embed", "--data-dir", str(tmp_path), "--model", ENGLISH_MODEL]
    assert predict[-5:] == ["topics", "predict", "--data-dir", str(tmp_path), "--embed-missing"]
    assert project[-4:] == ["topics", "map", "--data-dir", str(tmp_path)]  # the server never projects
    # all are real commands of this CLI
    for stage in stages:
        shown = runner.invoke(app, [*stage.command[3:], "--help"])
        assert shown.exit_code == 0, shown.output


def test_quickstart_chain_starts_with_the_static_first_pass_when_its_model_is_built(tmp_path, monkeypatch):
    from papersift.cli import serve_cmd
    from papersift.models import STATIC_MODEL

    monkeypatch.setattr(serve_cmd, "_static_built", lambda: False)
    without = serve_cmd.background_stages(tmp_path)
    monkeypatch.setattr(serve_cmd, "_static_built", lambda: True)
    first_topics, terms, features, first_pass, *rest = serve_cmd.background_stages(tmp_path)
    assert first_pass.command[-5:] == ["embed", "--data-dir", str(tmp_path), "--model", STATIC_MODEL]
    assert [first_topics, terms, features, *rest] == without  # then e5, MiniLM and the topics as before


def test_quickstart_chain_predicts_topics_first_from_words_then_again_after_the_vectors(tmp_path, monkeypatch):
    """Issue 28 item 8: the predictions came last (after e5 and MiniLM: an hour on a laptop), so
    most hits had no Area · Subarea for that hour. Now the first stage predicts every paper's topic
    from its words (no vectors needed), and the full model predicts again once the vectors are there."""
    from papersift.cli import serve_cmd

    monkeypatch.setattr(serve_cmd, "_static_built", lambda: True)
    stages = serve_cmd.background_stages(tmp_path)
    names = [stage.name for stage in stages]
    assert names[0] == serve_cmd.FIRST_TOPICS
    assert stages[0].command[-5:] == ["topics", "predict", "--data-dir", str(tmp_path), "--words-only"]
    assert "--embed-missing" not in stages[0].command  # it reads no vectors, so it never waits for them
    assert stages[0].required is False  # too few labelled papers to train on must not stop the vectors
    assert all(stage.required for stage in stages[1:])
    full = names.index("topics")
    assert full > names.index("e5 vectors") and full > names.index("English vectors")
    assert "--words-only" not in stages[full].command


def test_quickstart_without_the_shared_data_serves_the_shipped_sample_and_says_how_to_get_more(tmp_path, served,
                                                                                                monkeypatch):
    """Issue 28 item 12: without ../shared it stopped ("no corpus in ..."); now it serves the sample
    shipped in the package and names the commands that fetch the real lists."""
    monkeypatch.setenv("PAPERSIFT_SHARED_DATA", str(tmp_path / "no-shared-data-here"))
    data_dir = tmp_path / "data"
    result = runner.invoke(app, ["quickstart", "--data-dir", str(data_dir), "--no-embed"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "sample of 2,212 papers shipped with papersift" in said and "'papersift fetch'" in said
    assert "'papersift update'" in said
    assert Store(data_dir, readonly=True).count() == 2212 and len(served) == 1
    missing = runner.invoke(app, ["quickstart", "--data-dir", str(tmp_path / "other"), "--corpus", str(tmp_path)])
    assert missing.exit_code != 0 and "pass --corpus" in " ".join(missing.output.split())  # a named folder stays an error
