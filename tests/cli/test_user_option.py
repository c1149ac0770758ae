"""--user NAME on the commands that act on one user's data (library, recommend, saved,
feed-token, digest): an admin of a server with accounts acts on that account's rows only; the
default stays the local user; a name that is no account (or a removed one) is one line on stderr
and a non-zero exit, creating nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from papersift.accounts.users import Accounts
from papersift.cli import app
from papersift.component_schema import LOCAL_USER
from papersift.follow.state import Following
from papersift.library.entries import Library
from write_checks import ingested_dir

runner = CliRunner()


@pytest.fixture()
def data_dir(tmp_path, sample_records):
    directory = ingested_dir(tmp_path, sample_records[:20])
    accounts = Accounts.open(directory)
    accounts.add_user("alice", "alice-password-1")
    accounts.add_user("bob", "bob-password-22")
    return directory


def _run(data_dir, *args):
    return runner.invoke(app, [*map(str, args), "--data-dir", str(data_dir)])


def test_library_commands_as_alice_touch_only_alices_rows(data_dir, sample_records):
    ids = [record["id"] for record in sample_records[:3]]
    assert _run(data_dir, "library", "tag", "alices", *ids, "--user", "Alice").exit_code == 0
    assert _run(data_dir, "library", "like", ids[0], "--user", "alice").exit_code == 0
    assert _run(data_dir, "library", "note", ids[1], "alice's note", "--user", "alice").exit_code == 0
    store = Accounts.open(data_dir).store
    alice, bob, local = (Library(store, user) for user in ("alice", "bob", LOCAL_USER))
    assert sorted(alice.tagged("alices")) == sorted(ids) and alice.rated(1) == [ids[0]]
    assert alice.entry(ids[1]).note == "alice's note"
    assert bob.entries() == [] and local.entries() == []
    listed = json.loads(_run(data_dir, "library", "list", "--user", "alice", "--json").stdout)
    assert listed["tags"] == {"alices": 3}
    assert json.loads(_run(data_dir, "library", "list", "--user", "bob", "--json").stdout)["entries"] == []
    assert json.loads(_run(data_dir, "library", "list", "--json").stdout)["entries"] == []  # the local user's
    exported = _run(data_dir, "library", "export", "--format", "json", "--user", "bob")
    assert exported.exit_code == 0 and ids[0] not in exported.stdout
    assert ids[0] in _run(data_dir, "library", "export", "--format", "json", "--user", "alice").stdout


def test_the_default_is_still_the_local_user(data_dir, sample_records):
    assert _run(data_dir, "library", "tag", "mine", sample_records[0]["id"]).exit_code == 0
    store = Accounts.open(data_dir).store
    assert Library(store, LOCAL_USER).tagged("mine") == [sample_records[0]["id"]]
    assert Library(store, "alice").entries() == []
    assert _run(data_dir, "library", "tag", "mine2", sample_records[1]["id"], "--user", "local").exit_code == 0
    assert Library(store, LOCAL_USER).tagged("mine2") == [sample_records[1]["id"]]


def test_saved_searches_and_the_feed_token_per_user(data_dir):
    assert _run(data_dir, "saved", "add", "alices search", "graphs", "--user", "alice").exit_code == 0
    store = Accounts.open(data_dir).store
    assert [saved.name for saved in Following(store, "alice").saved_searches()] == ["alices search"]
    assert Following(store, "bob").saved_searches() == [] and Following(store, LOCAL_USER).saved_searches() == []
    assert json.loads(_run(data_dir, "saved", "list", "--user", "bob", "--json").stdout) == {"saved_searches": []}
    assert _run(data_dir, "saved", "delete", "alices search", "--user", "bob").exit_code == 1  # not Bob's to delete
    assert [saved.name for saved in Following(store, "alice").saved_searches()] == ["alices search"]
    token = json.loads(_run(data_dir, "feed-token", "create", "--user", "alice", "--json").stdout)["token"]
    assert Following(store, "alice").feed_token() == token and Following(store, "bob").feed_token() is None
    assert json.loads(_run(data_dir, "feed-token", "show", "--json").stdout) == {"token": None}


def test_recommend_learns_from_the_users_own_tag(data_dir, sample_records):
    ids = [record["id"] for record in sample_records[:4]]
    assert _run(data_dir, "library", "tag", "alices", *ids, "--user", "alice").exit_code == 0
    assert _run(data_dir, "library", "features").exit_code == 0
    hers = _run(data_dir, "recommend", "--tag", "alices", "-k", "3", "--user", "alice", "--json")
    assert hers.exit_code == 0, hers.output
    assert len(json.loads(hers.stdout)["hits"]) == 3
    for other in (["--user", "bob"], []):  # Bob and the local user have no such tag
        refused = _run(data_dir, "recommend", "--tag", "alices", *other)
        assert refused.exit_code == 1 and "alices" in refused.stderr


def test_digest_for_every_account_or_one(data_dir, sample_records):
    assert _run(data_dir, "index").exit_code == 0
    for user in ("alice", "bob"):
        assert _run(data_dir, "library", "tag", f"{user}s tag", sample_records[0]["id"], "--user", user).exit_code == 0
    assert _run(data_dir, "digest", "--user", "alice", "--lang", "zh").exit_code == 0
    store = Accounts.open(data_dir).store
    assert Following(store, "alice").settings() == {"lang": "zh"} and Following(store, LOCAL_USER).settings() == {}
    one = _run(data_dir, "digest", "--user", "bob", "--json")
    assert one.exit_code == 0, one.output
    assert list(json.loads(one.stdout)["users"]) == ["bob"]
    every = _run(data_dir, "digest", "--json")
    assert every.exit_code == 0 and list(json.loads(every.stdout)["users"]) == ["local", "alice", "bob"]


@pytest.mark.parametrize("args", [
    ["library", "tag", "x", "{id}"], ["library", "list"], ["recommend", "--tag", "x"], ["saved", "list"],
    ["feed-token", "show"], ["digest"],
])
def test_an_unknown_or_removed_user_is_one_line_and_creates_nothing(data_dir, sample_records, args):
    args = [arg.replace("{id}", sample_records[0]["id"]) for arg in args]
    unknown = _run(data_dir, *args, "--user", "mallory")
    assert unknown.exit_code == 1 and "--user: no user 'mallory'" in unknown.stderr and "Traceback" not in unknown.output
    Accounts.open(data_dir).remove_user("bob")
    removed = _run(data_dir, *args, "--user", "bob")
    assert removed.exit_code == 1 and "user 'bob' was removed" in removed.stderr
    store = Accounts.open(data_dir).store
    assert Library(store, "mallory").entries() == [] and Library(store, "bob").entries() == []


def test_a_store_without_accounts_knows_no_user(tmp_path, sample_records):
    directory = ingested_dir(tmp_path, sample_records[:3])
    result = _run(directory, "library", "list", "--user", "alice")
    assert result.exit_code == 1 and "no user 'alice'" in result.stderr
    from papersift.accounts.schema import SCHEMA
    from papersift.store import Store

    assert SCHEMA.stored_version(Store(directory)) == 0  # looking the name up made no accounts table
