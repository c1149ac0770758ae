"""papersift users add / invite / list / remove: JSON for scripts, the password from stdin, one-line
errors on stderr with a non-zero exit; an invitation link that signs up on the server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from papersift.accounts.users import Accounts
from papersift.cli import app
from write_checks import ingested_dir

runner = CliRunner()


@pytest.fixture()
def data_dir(tmp_path, sample_records):
    directory = ingested_dir(tmp_path, sample_records[:5])
    return directory


def _users(data_dir, *args, stdin=None):
    return runner.invoke(app, ["users", *args, "--data-dir", str(data_dir)], input=stdin)


def test_add_list_remove_as_json_with_the_password_from_stdin(data_dir):
    added = _users(data_dir, "add", "Alice", "--password-stdin", "--json", stdin="a-long-password\n")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout) == {"name": "alice", "created_at": json.loads(added.stdout)["created_at"], "removed": False}
    assert Accounts.open(data_dir).check_password("alice", "a-long-password") == "alice"
    assert [user["name"] for user in json.loads(_users(data_dir, "list", "--json").stdout)["users"]] == ["alice"]
    assert json.loads(_users(data_dir, "remove", "alice", "--json").stdout)["removed"] is True
    assert json.loads(_users(data_dir, "list", "--json").stdout)["users"] == []
    assert [user["name"] for user in json.loads(_users(data_dir, "list", "--removed", "--json").stdout)["users"]] == ["alice"]


def test_invite_prints_a_single_use_link(data_dir):
    made = _users(data_dir, "invite", "--base-url", "https://lab.example/", "--days", "1", "--json")
    assert made.exit_code == 0, made.output
    invitation = json.loads(made.stdout)
    assert invitation["link"] == f"https://lab.example/signup?invite={invitation['token']}"
    accounts = Accounts.open(data_dir)
    assert accounts.invitation_valid(invitation["token"])
    accounts.sign_up(invitation["token"], "carol", "carols-password")
    assert not accounts.invitation_valid(invitation["token"])


def test_reset_prints_a_single_use_link_for_the_user(data_dir):
    Accounts.open(data_dir).add_user("alice", "a-long-password")
    made = _users(data_dir, "reset", "Alice", "--base-url", "https://lab.example/", "--hours", "2", "--json")
    assert made.exit_code == 0, made.output
    reset = json.loads(made.stdout)
    assert reset["link"] == f"https://lab.example/reset?token={reset['token']}"
    accounts = Accounts.open(data_dir)
    assert accounts.reset_user(reset["token"]) == "alice"
    assert abs(reset["expires_at"] - accounts.clock() - 2 * 3600) < 60
    text = _users(data_dir, "reset", "alice")
    assert text.exit_code == 0 and "/reset?token=" in text.stdout and "single use" in text.stdout
    assert accounts.reset_user(reset["token"]) is None  # the newer link replaced it


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["reset", "nobody"], None, "no user 'nobody'"),
    (["add", "bob", "--password-stdin"], "short\n", "at least 10 characters"),
    (["add", "local", "--password-stdin"], "a-long-password\n", "reserved"),
    (["add", "bob"], "", "--password-stdin"),
    (["remove", "nobody"], None, "no user 'nobody'"),
])
def test_errors_are_one_line_on_stderr(data_dir, args, stdin, message):
    result = _users(data_dir, *args, stdin=stdin)
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.output


def test_a_data_dir_without_a_store_is_refused(tmp_path):
    result = runner.invoke(app, ["users", "list", "--data-dir", str(tmp_path / "none")])
    assert result.exit_code == 1 and "no papersift store" in result.stderr
