"""papersift.accounts.users: users, invitations, sessions and API tokens in the store; secrets
stored hashed; expiry by an injected clock; a store made before accounts keeps its library."""

from __future__ import annotations

import sqlite3

import pytest

from account_clients import Clock
from papersift.accounts.schema import SCHEMA
from papersift.accounts.users import API_TOKEN_PREFIX, RESET_TTL_S, SESSION_TTL_S, AccountError, Accounts, digest
from papersift.component_schema import LOCAL_USER
from papersift.library.entries import Library
from papersift.store import Store


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def accounts(tmp_path, clock) -> Accounts:
    return Accounts(Store(tmp_path / "data"), clock)


def _database_text(accounts: Accounts) -> bytes:
    accounts.store.read("PRAGMA wal_checkpoint(FULL)")
    return accounts.store.path.read_bytes()


def test_a_user_logs_in_with_the_right_password_only_and_the_hash_is_argon2id(accounts):
    user = accounts.add_user("Alice", "a-long-password")
    assert user.user_id == "alice"
    assert accounts.check_password("alice", "a-long-password") == "alice"
    assert accounts.check_password("ALICE ", "a-long-password") == "alice"
    assert accounts.check_password("alice", "a-long-passwort") is None
    assert accounts.check_password("nobody", "a-long-password") is None
    stored = accounts.store.read("SELECT password_hash FROM users WHERE user_id='alice'")[0][0]
    assert stored.startswith("$argon2id$") and b"a-long-password" not in _database_text(accounts)


@pytest.mark.parametrize(("name", "password", "problem"), [
    ("local", "a-long-password", "reserved"),
    ("a b", "a-long-password", "user name"),
    ("x" * 65, "a-long-password", "user name"),
    ("carol", "short", "at least 10"),
])
def test_bad_names_and_passwords_are_refused_with_the_reason(accounts, name, password, problem):
    with pytest.raises(AccountError, match=problem):
        accounts.add_user(name, password)
    assert accounts.users() == []


def test_a_removed_user_cannot_log_in_and_the_name_is_not_given_out_again(accounts):
    accounts.add_user("alice", "a-long-password")
    session = accounts.start_session("alice")
    _, token = accounts.create_api_token("alice", "script")
    accounts.remove_user("alice")
    assert accounts.check_password("alice", "a-long-password") is None
    assert accounts.session(session) is None and accounts.user_of_api_token(token) is None
    assert [user.user_id for user in accounts.users()] == []
    assert [user.user_id for user in accounts.users(include_removed=True)] == ["alice"]
    with pytest.raises(AccountError, match="exists"):
        accounts.add_user("alice", "another-long-password")


def test_an_invitation_signs_up_one_user_once_and_expires(accounts, clock):
    token, expires_at = accounts.invite(ttl_s=3600)
    assert expires_at == clock.now + 3600 and accounts.invitation_valid(token)
    assert accounts.sign_up(token, "carol", "carols-password").user_id == "carol"
    assert not accounts.invitation_valid(token)
    with pytest.raises(AccountError, match="unknown, used or expired"):
        accounts.sign_up(token, "dave", "daves-password")
    late, _ = accounts.invite(ttl_s=3600)
    clock.advance(3601)
    with pytest.raises(AccountError, match="unknown, used or expired"):
        accounts.sign_up(late, "erin", "erins-password")
    assert [user.user_id for user in accounts.users()] == ["carol"]
    assert token.encode() not in _database_text(accounts)


def test_a_failed_sign_up_leaves_the_invitation_unused(accounts):
    accounts.add_user("carol", "carols-password")
    token, _ = accounts.invite()
    with pytest.raises(AccountError, match="exists"):
        accounts.sign_up(token, "carol", "another-password")
    assert accounts.invitation_valid(token)


def test_sessions_expire_end_at_logout_and_are_stored_hashed(accounts, clock):
    accounts.add_user("alice", "a-long-password")
    session = accounts.start_session("alice")
    assert accounts.session(session).user_id == "alice"
    assert session.encode() not in _database_text(accounts)
    clock.advance(SESSION_TTL_S - 1)
    assert accounts.session(session) is not None
    clock.advance(2)
    assert accounts.session(session) is None
    other = accounts.start_session("alice")
    assert accounts.end_session(other) and accounts.session(other) is None
    assert accounts.session("") is None and accounts.session("x" * 500) is None


def test_changing_the_password_ends_the_other_sessions(accounts):
    accounts.add_user("alice", "a-long-password")
    kept, ended = accounts.start_session("alice"), accounts.start_session("alice")
    with pytest.raises(AccountError, match="current password is wrong"):
        accounts.change_password("alice", "not-the-password", "a-new-long-password")
    accounts.change_password("alice", "a-long-password", "a-new-long-password", keep_session=accounts.session(kept).session_hash)
    assert accounts.session(kept) is not None and accounts.session(ended) is None
    assert accounts.check_password("alice", "a-new-long-password") == "alice"


def test_api_tokens_are_shown_once_listed_revoked_and_only_by_their_owner(accounts):
    accounts.add_user("alice", "a-long-password")
    accounts.add_user("bob", "bobs-long-password")
    record, value = accounts.create_api_token("alice", "  nightly   script ")
    assert value.startswith(API_TOKEN_PREFIX) and record.name == "nightly script"
    assert accounts.user_of_api_token(value) == "alice"
    assert [token.name for token in accounts.api_tokens("alice")] == ["nightly script"] and accounts.api_tokens("bob") == []
    assert value.encode() not in _database_text(accounts)
    assert not accounts.revoke_api_token("bob", record.id)  # another user's id revokes nothing
    assert accounts.user_of_api_token(value) == "alice"
    assert accounts.revoke_api_token("alice", record.id)
    assert accounts.user_of_api_token(value) is None
    assert accounts.user_of_api_token(value + "x") is None and accounts.user_of_api_token("write-token-16-chars") is None


def test_a_store_made_before_accounts_keeps_the_local_users_library(tmp_path, sample_records):
    from papersift.record import paper_from_dict

    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert([paper_from_dict(record, source="test") for record in sample_records[:5]])
    ids = [record["id"] for record in sample_records[:3]]
    library = Library(store)
    library.tag(ids, "mine")
    library.set_note(ids[0], "kept across the migration")
    before = [entry.to_dict() for entry in library.entries()]
    store.close()
    with sqlite3.connect(data_dir / "papers.sqlite3") as conn:  # the previous version: no accounts tables
        assert conn.execute("SELECT name FROM sqlite_master WHERE name='users'").fetchone() is None

    accounts = Accounts.open(data_dir)
    assert SCHEMA.stored_version(accounts.store) == SCHEMA.latest
    accounts.add_user("alice", "a-long-password")
    after = Library(Store(data_dir, readonly=True), LOCAL_USER)
    assert [entry.to_dict() for entry in after.entries()] == before and after.tagged("mine") == ids
    assert Library(Store(data_dir, readonly=True), "alice").entries() == []
    Accounts.open(data_dir)  # a second open migrates nothing and loses nothing
    assert [user.user_id for user in Accounts.open(data_dir).users()] == ["alice"]


def test_a_reset_link_sets_the_password_once_and_ends_every_session(accounts, clock):
    accounts.add_user("alice", "a-long-password")
    accounts.add_user("bob", "bobs-long-password")
    sessions = [accounts.start_session("alice") for _ in range(2)]
    bobs = accounts.start_session("bob")
    token, expires_at = accounts.create_reset("Alice")
    assert expires_at == clock() + RESET_TTL_S and token.encode() not in _database_text(accounts)
    assert accounts.reset_user(token) == "alice" and accounts.reset_user(token + "x") is None
    with pytest.raises(AccountError, match="at least 10"):
        accounts.reset_password(token, "short")
    assert accounts.reset_user(token) == "alice"  # a refused password leaves the link usable
    assert accounts.reset_password(token, "a-new-long-password") == "alice"
    assert [accounts.session(session) for session in sessions] == [None, None]
    assert accounts.session(bobs) is not None  # only the link's user's sessions end
    assert accounts.check_password("alice", "a-new-long-password") == "alice"
    assert accounts.check_password("alice", "a-long-password") is None
    assert accounts.check_password("bob", "bobs-long-password") == "bob"
    assert accounts.reset_user(token) is None
    with pytest.raises(AccountError, match="unknown, used or expired"):
        accounts.reset_password(token, "a-third-long-password")


def test_a_reset_link_expires_is_replaced_by_a_newer_one_and_dies_with_its_user(accounts, clock):
    accounts.add_user("alice", "a-long-password")
    expired, _ = accounts.create_reset("alice", ttl_s=60)
    clock.advance(61)
    assert accounts.reset_user(expired) is None
    with pytest.raises(AccountError, match="unknown, used or expired"):
        accounts.reset_password(expired, "a-new-long-password")
    older, _ = accounts.create_reset("alice")
    newer, _ = accounts.create_reset("alice")
    assert accounts.reset_user(older) is None and accounts.reset_user(newer) == "alice"
    accounts.remove_user("alice")
    assert accounts.reset_user(newer) is None
    with pytest.raises(AccountError, match="removed"):
        accounts.create_reset("alice")
    with pytest.raises(AccountError, match="no user 'nobody'"):
        accounts.create_reset("nobody")
    assert accounts.check_password("alice", "a-long-password") is None


def test_accounts_of_schema_version_1_migrate_to_the_latest_keeping_users_and_sessions(tmp_path, clock):
    from papersift.accounts import passwords
    from papersift.accounts.schema import VERSION_1
    from papersift.component_schema import run_script

    store = Store(tmp_path / "data")
    with store.transaction("the accounts tables of version 1") as conn:
        run_script(conn, VERSION_1)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (SCHEMA.key,))
        conn.execute("INSERT INTO users (user_id, password_hash, created_at) VALUES ('alice', ?, 1)",
                     (passwords.hash_password("a-long-password"),))
        conn.execute("INSERT INTO sessions (session_hash, user_id, created_at, expires_at) VALUES (?, 'alice', 1, ?)",
                     (digest("old-session-id"), clock() + 60))
    assert SCHEMA.stored_version(store) == 1
    accounts = Accounts(store, clock)
    assert SCHEMA.stored_version(store) == SCHEMA.latest >= 2
    assert accounts.check_password("alice", "a-long-password") == "alice"
    assert accounts.session("old-session-id").user_id == "alice"
    token, _ = accounts.create_reset("alice")
    assert accounts.reset_user(token) == "alice"


def test_sessions_are_listed_per_user_with_their_browser_and_the_others_end(accounts, clock):
    accounts.add_user("alice", "a-long-password")
    accounts.add_user("bob", "bobs-long-password")
    first = accounts.start_session("alice", user_agent="Firefox/130  on\nLinux")
    clock.advance(10)
    second = accounts.start_session("alice", user_agent="x" * 500)
    expired = accounts.start_session("alice", ttl_s=5)
    bobs = accounts.start_session("bob", user_agent="Bob's browser")
    clock.advance(6)
    here = accounts.session(second).session_hash
    listed = accounts.sessions("alice", current=here)
    assert [(info.user_agent, info.current) for info in listed] == [("x" * 200, True), ("Firefox/130 on Linux", False)]
    assert accounts.session(expired) is None
    assert accounts.end_other_sessions("alice", here) == 2  # the first and the expired one
    assert accounts.session(first) is None and accounts.session(second) is not None
    assert accounts.session(bobs) is not None and [info.user_agent for info in accounts.sessions("bob")] == ["Bob's browser"]


def test_accounts_of_schema_version_2_gain_the_sessions_user_agent(tmp_path, clock):
    from papersift.accounts.schema import VERSION_1, VERSION_2
    from papersift.component_schema import run_script

    store = Store(tmp_path / "data")
    with store.transaction("the accounts tables of version 2") as conn:
        run_script(conn, VERSION_1)
        run_script(conn, VERSION_2)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '2')", (SCHEMA.key,))
        conn.execute("INSERT INTO users (user_id, password_hash, created_at) VALUES ('alice', NULL, 1)")
        conn.execute("INSERT INTO sessions (session_hash, user_id, created_at, expires_at) VALUES (?, 'alice', 1, ?)",
                     (digest("old-session-id"), clock() + 60))
    accounts = Accounts(store, clock)
    assert SCHEMA.stored_version(store) == SCHEMA.latest == 3
    assert accounts.session("old-session-id").user_id == "alice"
    assert [(info.created_at, info.user_agent) for info in accounts.sessions("alice")] == [(1, None)]
    with store.transaction("run the step again") as conn:  # a step may run twice (ComponentSchema)
        SCHEMA.migrations[-1][1](conn)
