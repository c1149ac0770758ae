"""papersift saved / feed-token / digest from the command line: JSON output, one-line errors on
stderr with a non-zero exit and no traceback, and a digest whose SMTP server is down exits 1
with the digest waiting."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from papersift.cli import app
from smtp_server import free_port
from write_checks import ingested_dir

runner = CliRunner()


@pytest.fixture()
def data_dir(tmp_path, sample_records):
    directory = ingested_dir(tmp_path, sample_records[:40])
    return directory


def test_add_list_rename_delete_as_json(data_dir):
    added = runner.invoke(app, ["saved", "add", "graphs", "graph neural", "--mode", "keyword", "--venue", "ICLR",
                                "--year-from", "2020", "--data-dir", str(data_dir), "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["search"] == {"q": "graph neural", "mode": "keyword", "venue": ["ICLR"], "year_from": 2020}
    assert runner.invoke(app, ["saved", "rename", "graphs", "GNNs", "--data-dir", str(data_dir)]).exit_code == 0
    listed = json.loads(runner.invoke(app, ["saved", "list", "--data-dir", str(data_dir), "--json"]).stdout)
    assert [item["name"] for item in listed["saved_searches"]] == ["GNNs"]
    deleted = runner.invoke(app, ["saved", "delete", "GNNs", "--data-dir", str(data_dir), "--json"])
    assert json.loads(deleted.stdout)["deleted"]["name"] == "GNNs"


@pytest.mark.parametrize("args, message", [
    (["saved", "delete", "nothing"], "no saved search 'nothing'"),
    (["saved", "add", "x", "q", "--sort", "random"], "sort must be one of"),
    (["saved", "add", "x", "q", "--year-from", "2024", "--year-to", "2020"], "after year_to"),
    (["digest", "--lang", "fr"], "lang must be zh or en"),
])
def test_bad_requests_are_one_line_on_stderr(data_dir, args, message):
    result = runner.invoke(app, [*args, "--data-dir", str(data_dir)])
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("address", ["reader@example.org\r\nBcc: everyone@example.org", "reader@example.org\rX: y",
                                     "reader", "a@b.org, c@d.org", "Reader <reader@example.org>", "reader@exa mple.org",
                                     "reader@example.org\x00"])
def test_a_digest_address_is_checked_when_it_is_given(data_dir, address):
    """CR/LF (a header injection), a list, a display name: one line when --email is given, and the
    address is not stored (it used to be stored, then fail with a traceback when mail was built)."""
    from papersift.follow.state import Following

    result = runner.invoke(app, ["digest", "--email", address, "--data-dir", str(data_dir)])
    assert result.exit_code == 1 and result.exception is not None and isinstance(result.exception, SystemExit)
    assert result.stderr.strip().splitlines() == [(f"error: e-mail address {address!r} is not one address of the form "
                                                  "name@domain")]
    assert Following.open(data_dir).settings().get("email") is None


def test_a_digest_to_a_bad_environment_address_is_one_line(data_dir, monkeypatch):
    monkeypatch.setenv("PAPERSIFT_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERSIFT_DIGEST_TO", "reader@example.org\r\nBcc: everyone@example.org")
    result = runner.invoke(app, ["digest", "--data-dir", str(data_dir)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.strip().splitlines() == [
        ("error: PAPERSIFT_DIGEST_TO 'reader@example.org\\r\\nBcc: everyone@example.org' is not one address of the "
        "form name@domain")]


def test_the_feed_token_commands(data_dir):
    created = json.loads(runner.invoke(app, ["feed-token", "create", "--data-dir", str(data_dir), "--json"]).stdout)
    shown = json.loads(runner.invoke(app, ["feed-token", "show", "--data-dir", str(data_dir), "--json"]).stdout)
    assert shown == created and len(created["token"]) >= 32
    revoked = json.loads(runner.invoke(app, ["feed-token", "revoke", "--data-dir", str(data_dir), "--json"]).stdout)
    assert revoked == {"revoked": True}
    assert json.loads(runner.invoke(app, ["feed-token", "show", "--data-dir", str(data_dir), "--json"]).stdout) == {"token": None}


def test_a_digest_with_the_smtp_server_down_exits_1_and_keeps_it(data_dir, sample_records, monkeypatch):
    from papersift.follow.state import Following

    unindexed = runner.invoke(app, ["digest", "--data-dir", str(data_dir)])
    assert unindexed.exit_code == 1 and "run 'papersift index" in unindexed.stderr and "Traceback" not in unindexed.output
    assert runner.invoke(app, ["index", "--data-dir", str(data_dir)]).exit_code == 0

    Following.open(data_dir).set_setting("email", "reader@example.org")
    runner.invoke(app, ["library", "tag", "seed", sample_records[0]["id"], "--data-dir", str(data_dir)])
    Following.open(data_dir).queue_digest("subject", "text", "<p>html</p>", 1, [])
    monkeypatch.setenv("PAPERSIFT_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERSIFT_SMTP_PORT", str(free_port()))
    monkeypatch.setenv("PAPERSIFT_SMTP_STARTTLS", "0")
    result = runner.invoke(app, ["digest", "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)["users"]["local"]
    assert report["delivery"]["waiting"] == [1] and "Connection" in report["delivery"]["error"]
    assert [digest.sent_at for digest in Following.open(data_dir).digests()] == [None]


def test_show_marks_new_papers_and_seen_clears_them(data_dir):
    from papersift.index import lexical
    from papersift.record import paper_from_dict
    from papersift.store import Store
    from write_checks import synthetic_records

    assert runner.invoke(app, ["index", "--data-dir", str(data_dir)]).exit_code == 0
    assert runner.invoke(app, ["saved", "add", "colm", "", "--venue", "COLM", "--sort", "newest", "--mode", "keyword",
                               "--data-dir", str(data_dir)]).exit_code == 0
    Store(data_dir).upsert([paper_from_dict(record) for record in synthetic_records("cli", 2)])
    lexical.update(data_dir)
    shown = json.loads(runner.invoke(app, ["saved", "show", "colm", "--new", "--data-dir", str(data_dir), "--json"]).stdout)
    assert shown["new"] == 2 and sorted(paper["id"] for paper in shown["papers"]) == ["cli-0", "cli-1"]
    text = runner.invoke(app, ["saved", "show", "colm", "--data-dir", str(data_dir)]).stdout
    assert text.count("* cli-") == 2 and text.rstrip().endswith("2 new of " + str(text.count("\n") - 1))
    marked = json.loads(runner.invoke(app, ["saved", "seen", "colm", "--data-dir", str(data_dir), "--json"]).stdout)
    assert marked["were_new"] == 2
    assert json.loads(runner.invoke(app, ["saved", "show", "colm", "--data-dir", str(data_dir), "--json"]).stdout)["new"] == 0
