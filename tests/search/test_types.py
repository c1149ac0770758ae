"""The plain records of search: a Hit made the fast way is the Hit its fields make."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from papersift.record import Paper
from papersift.search import types
from papersift.search.types import Hit, hit_of


def test_hit_of_is_the_hit_its_fields_make():
    paper = Paper(id="p1", title="Graph networks")
    made = hit_of(paper, 1.5, {"title": "<mark>Graph</mark> networks"})
    assert type(made) is Hit and made == Hit(paper, 1.5, {"title": "<mark>Graph</mark> networks"})
    assert repr(made) == repr(Hit(paper, 1.5, {"title": "<mark>Graph</mark> networks"}))
    assert made.topic_predicted is False and made.topic_confidence is None
    with pytest.raises(FrozenInstanceError):
        made.score = 2.0  # type: ignore[misc]


def test_a_hit_with_a_post_init_is_made_through_it(monkeypatch):
    """The direct path would skip a __post_init__ (or a field it does not know): then Hit's own
    __init__ makes hits."""
    monkeypatch.setattr(Hit, "__post_init__", lambda self: None, raising=False)
    assert types._hit_maker() is Hit
