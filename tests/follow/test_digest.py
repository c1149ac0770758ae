"""papersift digest against a local SMTP server (aiosmtpd, started by the test): exactly the
papers that arrived since the saved search was made, one message; a second run sends nothing;
a server that is down keeps the digest waiting (nothing lost), the next run delivers it once
(nothing twice); required STARTTLS is never skipped; without SMTP the digest is written to
files; the language is the user's."""

from __future__ import annotations

import pytest

from digest_runs import run_digest
from papersift.follow.digest import DigestRunning
from papersift.follow.saved import SavedQuery
from papersift.follow.state import Following
from papersift.index import lexical
from papersift.record import paper_from_dict
from papersift.run_locks import hold, release
from papersift.store import Store
from served_papers import build_served_data_dir
from smtp_server import free_port
from write_checks import synthetic_records


def smtp_env(port: int, **more) -> dict:
    return {"PAPERSIFT_SMTP_HOST": "127.0.0.1", "PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_SMTP_STARTTLS": "0",
            "PAPERSIFT_DIGEST_TO": "reader@example.org", "PAPERSIFT_SMTP_TIMEOUT": "10", **more}


@pytest.fixture()
def data_dir(sample_records, tmp_path):
    directory = build_served_data_dir(tmp_path / "data", sample_records[:60])
    Following.open(directory).save_search("zebra", SavedQuery(q="zebrafish", mode="keyword", sort="newest"))
    return directory


def arrive(data_dir, prefix: str, count: int) -> list[str]:
    records = synthetic_records(prefix, count)
    for record in records:
        record["title"] = f"Zebrafish <models> & {record['id']}"
    Store(data_dir).upsert([paper_from_dict(record) for record in records])
    lexical.update(data_dir)
    return [record["title"] for record in records]


def titles_in(message) -> list[str]:
    text = message.get_body(("plain",)).get_content()
    return sorted(line[2:] for line in text.splitlines() if line.startswith("- "))


def test_one_message_with_exactly_the_new_papers_then_nothing(data_dir, smtp_server):
    inbox, port = smtp_server
    titles = arrive(data_dir, "zebra", 3)
    report = run_digest(data_dir, env=smtp_env(port))
    assert report.papers == 3 and report.delivery.delivered == [report.queued] and report.delivery.error is None
    assert len(inbox.messages) == 1
    recipients, message = inbox.messages[0]
    assert recipients == ["reader@example.org"] and "3 new papers" in message["Subject"]
    assert titles_in(message) == sorted(titles)
    html = message.get_body(("html",)).get_content()
    assert "&lt;models&gt; &amp;" in html and "<models>" not in html

    again = run_digest(data_dir, env=smtp_env(port))
    assert again.queued is None and again.delivery.delivered == [] and len(inbox.messages) == 1

    later = arrive(data_dir, "later", 2)
    run_digest(data_dir, env=smtp_env(port))
    assert len(inbox.messages) == 2 and titles_in(inbox.messages[1][1]) == sorted(later)


def test_a_server_that_is_down_loses_nothing_and_sends_nothing_twice(data_dir, smtp_server):
    inbox, port = smtp_server
    titles = arrive(data_dir, "zebra", 2)
    down = run_digest(data_dir, env=smtp_env(free_port()))
    assert down.delivery.error and "Connection" in down.delivery.error and down.delivery.waiting == [down.queued]
    assert [digest.id for digest in Following.open(data_dir).unsent_digests()] == [down.queued]

    more = arrive(data_dir, "more", 1)  # arrives while the first digest waits
    up = run_digest(data_dir, env=smtp_env(port))
    assert up.delivery.delivered == [down.queued, up.queued] and up.delivery.error is None
    assert [titles_in(message) for _, message in inbox.messages] == [sorted(titles), sorted(more)]
    assert Following.open(data_dir).unsent_digests() == []
    run_digest(data_dir, env=smtp_env(port))
    assert len(inbox.messages) == 2


def test_required_starttls_is_never_skipped(data_dir, smtp_server):
    inbox, port = smtp_server  # this server offers no STARTTLS
    arrive(data_dir, "zebra", 1)
    report = run_digest(data_dir, env=smtp_env(port, PAPERSIFT_SMTP_STARTTLS="1"))
    assert report.delivery.error and "STARTTLS" in report.delivery.error.upper()
    assert inbox.messages == [] and len(Following.open(data_dir).unsent_digests()) == 1


def test_without_smtp_the_digest_is_written_in_the_users_language(data_dir):
    Following.open(data_dir).set_setting("lang", "zh")
    titles = arrive(data_dir, "zebra", 2)
    report = run_digest(data_dir, env={})
    assert report.delivery.by == "files" and report.delivery.delivered == [report.queued]
    text = (data_dir / "digests" / f"digest-{report.queued:06d}.txt").read_text(encoding="utf-8")
    assert text.startswith("论文检索：2 篇新论文") and "已保存的检索：zebra" in text
    assert all(title in text for title in titles)
    assert (data_dir / "digests" / f"digest-{report.queued:06d}.html").read_text(encoding="utf-8").count("<li>") == 2
    assert not list((data_dir / "digests").glob("*.tmp"))


def test_a_second_run_at_the_same_time_stops_at_once(data_dir):
    lock = data_dir / "digest.lock"
    handle = hold(lock)
    try:
        with pytest.raises(DigestRunning, match="another 'papersift digest'"):
            run_digest(data_dir, env={})
    finally:
        release(handle, lock)


def test_a_tags_recommendations_are_sent_once_each(data_dir, sample_records):
    from papersift.library.entries import Library
    from papersift.library.features import build_features

    Library.open(data_dir).tag([record["id"] for record in sample_records[:3]], "<seed> tag")
    build_features(data_dir)
    first = run_digest(data_dir, env={})
    assert first.skipped == {} and first.watches == {"tag:<seed> tag": 20}
    text = (data_dir / "digests" / f"digest-{first.queued:06d}.txt").read_text(encoding="utf-8")
    assert "== Recommended for tag: <seed> tag (20 new) ==" in text and text.count("\n- ") == 20
    html = (data_dir / "digests" / f"digest-{first.queued:06d}.html").read_text(encoding="utf-8")
    assert "&lt;seed&gt; tag" in html and "<seed>" not in html
    assert run_digest(data_dir, env={}).queued is None  # the same recommendations: nothing new


def _two_accounts(data_dir) -> None:
    from papersift.accounts.users import Accounts

    accounts = Accounts.open(data_dir)
    accounts.add_user("alice", "alice-password-1")
    accounts.add_user("bob", "bob-password-22")
    Following.open(data_dir, user_id="alice").save_search("alices zebras", SavedQuery(q="zebrafish", mode="keyword"))
    Following.open(data_dir, user_id="bob").save_search("bobs quiet search", SavedQuery(q="qqqnothing", mode="keyword"))


def test_every_account_gets_a_digest_of_its_own_searches_in_its_own_folder(data_dir):
    from papersift.follow.digest import run_digests

    _two_accounts(data_dir)
    titles = arrive(data_dir, "zebra", 2)
    run = run_digests(data_dir, env={})
    assert list(run.reports) == ["local", "alice", "bob"] and run.no_address == []
    assert run.reports["local"].papers == run.reports["alice"].papers == 2 and run.reports["bob"].queued is None
    alice_text = (data_dir / "digests" / "alice" / f"digest-{run.reports['alice'].queued:06d}.txt").read_text()
    local_text = (data_dir / "digests" / f"digest-{run.reports['local'].queued:06d}.txt").read_text()
    assert "alices zebras" in alice_text and all(title in alice_text for title in titles)
    assert "alices zebras" not in local_text and "Saved search: zebra" in local_text
    assert not (data_dir / "digests" / "bob").exists()
    assert [digest.id for digest in Following.open(data_dir, user_id="bob").digests()] == []
    only_bob = run_digests(data_dir, users=["bob"], env={})
    assert list(only_bob.reports) == ["bob"]


def test_by_smtp_each_account_gets_its_own_address_and_none_falls_back_to_digest_to(data_dir, smtp_server):
    from papersift.follow.digest import run_digests

    inbox, port = smtp_server
    _two_accounts(data_dir)
    Following.open(data_dir, user_id="alice").set_setting("email", "alice@example.org")
    Following.open(data_dir, user_id="bob").save_search("bobs zebras too", SavedQuery(q="zebrafish", mode="keyword"))
    arrive(data_dir, "zebra", 2)
    run = run_digests(data_dir, env=smtp_env(port))
    assert run.no_address == ["bob"] and list(run.reports) == ["local", "alice"] and not run.failed
    by_recipient = {tuple(recipients): message for recipients, message in inbox.messages}
    assert set(by_recipient) == {("reader@example.org",), ("alice@example.org",)}  # never Bob's digest to DIGEST_TO
    alice_text = by_recipient[("alice@example.org",)].get_body(("plain",)).get_content()
    local_text = by_recipient[("reader@example.org",)].get_body(("plain",)).get_content()
    assert "alices zebras" in alice_text and "bobs" not in alice_text
    assert "alices zebras" not in local_text and "bobs" not in local_text
