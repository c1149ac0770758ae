"""Fast constructors of frozen slotted dataclasses: what cls(...) makes, or None when they cannot."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from papersift.slotted import frozen_maker


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int
    label: str = "origin"
    tags: tuple[str, ...] = ()


def test_a_maker_makes_what_the_class_makes_from_arguments_or_a_list():
    assert frozen_maker(Point, 2)(1, 2) == Point(1, 2)  # type: ignore[misc]
    assert frozen_maker(Point, 4, from_list=True)([1, 2, "a", ("t",)]) == Point(1, 2, "a", ("t",))  # type: ignore[misc]
    made = frozen_maker(Point, 3)(1, 2, "b")  # type: ignore[misc]
    assert type(made) is Point and repr(made) == repr(Point(1, 2, "b"))
    with pytest.raises(FrozenInstanceError):
        made.x = 3


def test_no_maker_where_it_would_differ_from_the_class():
    @dataclass(frozen=True, slots=True)
    class Listed:
        x: int
        items: list[int] = field(default_factory=list)  # a new list per instance

    assert frozen_maker(Listed, 1) is None and frozen_maker(Listed, 2) is not None

    @dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self):
            raise ValueError("checked")

    assert frozen_maker(Checked, 1) is None
