"""Labels people give: tags and saved-search names (papersift.labels)."""

from __future__ import annotations

import pytest

from papersift.follow.saved import FollowError, clean_name
from papersift.labels import clean_label
from papersift.library.entries import LibraryError, clean_tag


def test_a_label_is_one_line_of_bounded_length():
    assert clean_label("  deep \n\t learning ", 20, ValueError, "empty", "tag") == "deep learning"
    with pytest.raises(KeyError, match="nothing"):
        clean_label(" \n ", 20, KeyError, "nothing", "tag")
    with pytest.raises(ValueError, match=r"^tag 'xxxxxxxxxxxxxxxxxxxxx'\.\.\.: over 20 characters$"):
        clean_label("x" * 21, 20, ValueError, "empty", "tag")


def test_tags_and_saved_search_names_are_cleaned_alike_with_their_own_errors():
    assert clean_tag(" to  read ") == clean_name(" to  read ") == "to read"
    with pytest.raises(LibraryError, match="a tag cannot be empty"):
        clean_tag("  ")
    with pytest.raises(FollowError, match="a saved search needs a name"):
        clean_name("  ")


@pytest.mark.parametrize("bad", ["a\x00b", "right\u202eleft", "zero\u200bwidth", "bom\ufeff"])
def test_control_bidi_and_invisible_characters_are_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"U\+[0-9A-F]{4}"):
        clean_label(bad, 50, ValueError, "empty", "tag")


def test_a_label_is_stored_in_nfc():
    assert clean_label("cafe\u0301", 20, ValueError, "empty", "tag") == "caf\u00e9"
