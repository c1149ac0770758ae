"""follow.state: saved searches (save, rename, delete, limits), seen marks, the feed token, the
CSRF key and the digest outbox, each in the store's database with its own schema version."""

from __future__ import annotations

import pytest

from papersift.follow.saved import FollowError, SavedQuery
from papersift.follow.schema import FOLLOW_SCHEMA, SCHEMA_KEY
from papersift.follow.state import Following
from papersift.store import Store


@pytest.fixture()
def following(tmp_path) -> Following:
    return Following(Store(tmp_path / "data"))


def test_save_rename_delete_by_name_or_id(following):
    saved = following.save_search("  GAN   papers ", SavedQuery.from_dict({"q": "gan", "venue": ["ICLR", " "], "sort": "newest"}))
    assert saved.name == "GAN papers" and saved.query.venue == ("ICLR",)
    assert saved.to_dict()["search"] == {"q": "gan", "sort": "newest", "venue": ["ICLR"]}
    assert following.saved_search(str(saved.id)) == following.saved_search("GAN papers")
    with pytest.raises(FollowError, match="already named 'GAN papers'"):
        following.save_search("GAN papers", SavedQuery(q="other"))
    other = following.save_search("2024", SavedQuery(q="x"))  # a name made of digits is found by name first
    assert following.saved_search("2024").id == other.id
    assert following.rename_search(saved.id, "GANs").name == "GANs"
    with pytest.raises(FollowError, match="already named"):
        following.rename_search("GANs", "2024")
    following.delete_search("GANs")
    assert [item.name for item in following.saved_searches()] == ["2024"]
    assert following.mark(f"saved:{saved.id}", "page") is None  # its marks went with it
    with pytest.raises(FollowError, match="no saved search"):
        following.saved_search("GANs")


@pytest.mark.parametrize("values, problem", [
    ({"q": "x" * 1001}, "at most 1,000"), ({"mode": "fuzzy"}, "mode must be"), ({"sort": "random"}, "sort must be"),
    ({"year_from": 2024, "year_to": 2020}, "after year_to"), ({"page": 2}, "unknown search parameter"),
    ({"venue": ["v"] * 51}, "at most 50"),
])
def test_bad_searches_are_refused_with_the_reason(values, problem):
    with pytest.raises(FollowError, match=problem):
        SavedQuery.from_dict(values)


def test_a_new_saved_search_starts_marked_at_the_store_as_it_is(following):
    saved = following.save_search("s", SavedQuery(q="x"))
    for channel in ("page", "digest"):
        mark = following.mark(f"saved:{saved.id}", channel)
        assert mark is not None and mark.seen_seq == following.store.max_seq() and mark.seen_ids == frozenset()


def test_marks_only_move_forward_and_collect_the_shown_ids(following):
    following.mark_seen("venue:ICLR", 10, ["a", "b"])
    following.mark_seen("venue:ICLR", 7, ["c"])  # an older listing finishing late does not move the mark back
    mark = following.mark("venue:ICLR")
    assert mark.seen_seq == 10 and mark.seen_ids == {"a", "b", "c"}
    assert following.mark("venue:ICLR", "digest") is None


def test_the_feed_token_is_random_replaced_and_revocable(following):
    assert following.feed_token() is None
    first = following.new_feed_token()
    assert len(first) >= 32 and following.user_of_token(first) == "local"
    second = following.new_feed_token()
    assert second != first and following.user_of_token(first) is None and following.user_of_token(second) == "local"
    assert following.revoke_feed_token() is True
    assert following.user_of_token(second) is None and following.feed_token() is None


def test_the_csrf_key_is_made_with_the_tables_once(tmp_path):
    store = Store(tmp_path / "data")
    key = Following(store).csrf_key()
    assert key and len(key) >= 40
    assert Following(Store(tmp_path / "data")).csrf_key() == key
    assert store.read("SELECT value FROM meta WHERE key=?", (SCHEMA_KEY,))[0][0] == str(FOLLOW_SCHEMA)


def test_a_read_only_store_reads_empty_and_refuses_writes(tmp_path):
    Store(tmp_path / "data").close()
    following = Following(Store(tmp_path / "data", readonly=True))
    assert following.saved_searches() == [] and following.csrf_key() is None and following.feed_token() is None
    with pytest.raises(FollowError, match="read-only"):
        following.save_search("s", SavedQuery())


def test_settings_are_checked(following):
    following.set_setting("lang", "zh")
    following.set_setting("email", "me@example.org")
    assert following.settings() == {"lang": "zh", "email": "me@example.org"}
    with pytest.raises(FollowError, match="zh or en"):
        following.set_setting("lang", "fr")
    following.set_setting("email", None)
    assert following.settings() == {"lang": "zh"}


def test_a_queued_digest_and_its_marks_are_one_write_and_sent_once(following):
    digest_id = following.queue_digest("subject", "text", "<p>html</p>", 2, [("saved:1", 5, ["a", "b"])])
    assert [digest.id for digest in following.unsent_digests()] == [digest_id]
    assert following.mark("saved:1", "digest").seen_ids == {"a", "b"}
    following.record_sent(digest_id, "me@example.org")
    following.record_sent(digest_id, "someone-else")  # a second record does not rewrite the first
    assert following.unsent_digests() == [] and following.digests()[0].sent_to == "me@example.org"


def test_saved_search_names_are_nfc_and_plain_text(following):
    saved = following.save_search("Cafe\u0301 papers", SavedQuery(q="coffee"))
    assert saved.name == "Caf\u00e9 papers" and following.saved_search("Caf\u00e9 papers").id == saved.id
    for bad in ("a\x00b", "new\u202egpj.exe", "zero\u200bwidth"):
        with pytest.raises(FollowError, match="labels are plain text"):
            following.save_search(bad, SavedQuery(q="x"))
        with pytest.raises(FollowError, match="labels are plain text"):
            following.rename_search(saved.id, bad)
    assert [item.name for item in following.saved_searches()] == ["Caf\u00e9 papers"]
