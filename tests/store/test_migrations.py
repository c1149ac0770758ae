"""store/migrations.py: the one migration runner (the store, the component tables, the
embedding cache) and the one splitter of migration scripts."""

import sqlite3

import pytest

from papersift.store.migrations import (
    MetaKey,
    Migrations,
    UserVersion,
    immediate_transaction,
    run_script,
    split_statements,
)

# A `;` inside a string literal, a quoted literal with a doubled quote, a line comment and a
# block comment: none of them ends a statement (str.split(";"), the two splitters this one
# replaced, cut each of them and the statements failed).
SCRIPT = """
CREATE TABLE notes (body TEXT NOT NULL);  -- a note; with a semicolon in the comment
INSERT INTO notes VALUES ('first; second');
/* a block; comment */ INSERT INTO notes VALUES ('it''s; fine')
"""


def test_split_keeps_a_semicolon_inside_a_string_or_a_comment_in_its_statement():
    assert split_statements(SCRIPT) == [
        "CREATE TABLE notes (body TEXT NOT NULL);",
        "-- a note; with a semicolon in the comment\nINSERT INTO notes VALUES ('first; second');",
        "/* a block; comment */ INSERT INTO notes VALUES ('it''s; fine')",
    ]


def test_run_script_runs_each_statement_in_the_callers_transaction():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("BEGIN")
    run_script(conn, SCRIPT + "\n-- a trailing comment; alone\n")
    assert conn.in_transaction  # executescript would have committed
    conn.execute("ROLLBACK")
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name='notes'").fetchall()
    run_script(conn, SCRIPT)
    assert [row[0] for row in conn.execute("SELECT body FROM notes")] == ["first; second", "it's; fine"]


def test_split_drops_empty_statements():
    assert split_statements(" ;\n; CREATE TABLE a (x);;") == ["CREATE TABLE a (x);"]


def _schema(log: list, slot=None) -> Migrations:
    def step(name: str):
        return lambda conn: (log.append(name), conn.execute(f"CREATE TABLE IF NOT EXISTS {name} (x)"))

    return Migrations(slot or UserVersion(), ((1, step("one")), (3, step("three")), (4, step("four"))))


def test_steps_past_the_recorded_version_run_then_the_latest_is_recorded(tmp_path):
    conn = sqlite3.connect(tmp_path / "db.sqlite3")
    conn.execute("PRAGMA user_version=1")
    log: list = []
    schema = _schema(log)
    assert schema.ensure(conn, lambda: immediate_transaction(conn)) is True
    assert log == ["three", "four"] and schema.version(conn) == 4
    assert schema.ensure(conn, lambda: immediate_transaction(conn)) is False and log == ["three", "four"]


def test_the_version_is_read_again_inside_the_transaction(tmp_path):
    # another process migrates between this one's first look and its write lock: nothing runs twice
    path = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(path)
    log: list = []
    schema = _schema(log)

    def other_process_first():
        other = sqlite3.connect(path)
        schema.ensure(other, lambda: immediate_transaction(other))
        other.close()
        return immediate_transaction(conn)

    assert schema.ensure(conn, other_process_first) is False
    assert log == ["one", "three", "four"]


def test_a_failing_step_leaves_the_schema_at_its_version(tmp_path):
    conn = sqlite3.connect(tmp_path / "db.sqlite3")

    def broken(conn):
        conn.execute("CREATE TABLE half (x)")
        raise sqlite3.OperationalError("disk I/O error")

    schema = Migrations(UserVersion(), ((1, lambda conn: conn.execute("CREATE TABLE one (x)")), (2, broken)))
    with pytest.raises(sqlite3.OperationalError):
        schema.ensure(conn, lambda: immediate_transaction(conn))
    assert schema.version(conn) == 0
    assert not conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()


def test_a_meta_key_reads_zero_before_the_meta_table_exists_and_keeps_its_own_row(tmp_path):
    conn = sqlite3.connect(tmp_path / "db.sqlite3")
    slot = MetaKey("notes_schema")
    assert slot.read(conn) == 0
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    schema = _schema([], slot)
    schema.ensure(conn, lambda: immediate_transaction(conn))
    assert slot.read(conn) == 4 and UserVersion().read(conn) == 0
    assert conn.execute("SELECT value FROM meta WHERE key='notes_schema'").fetchone() == ("4",)


def test_a_version_past_the_latest_is_left_as_it_is(tmp_path):
    conn = sqlite3.connect(tmp_path / "db.sqlite3")
    conn.execute("PRAGMA user_version=9")  # written by a newer papersift
    log: list = []
    with immediate_transaction(conn):
        assert _schema(log).apply(conn) is False
    assert log == [] and UserVersion().read(conn) == 9


def test_the_store_the_components_and_the_embedding_cache_share_the_runner():
    from papersift.accounts.schema import SCHEMA as ACCOUNTS
    from papersift.follow.schema import SCHEMA as FOLLOW
    from papersift.index.embeddings import CACHE_MIGRATIONS
    from papersift.library.schema import SCHEMA as LIBRARY
    from papersift.store.schema import MIGRATIONS

    runners = [MIGRATIONS, CACHE_MIGRATIONS, *(schema.runner for schema in (ACCOUNTS, FOLLOW, LIBRARY))]
    assert all(type(runner) is Migrations for runner in runners)
