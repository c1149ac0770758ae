"""Fast constructors for frozen, slotted dataclasses (Paper, Hit): a result page makes 20 of each.

A frozen dataclass's __init__ sets each field through object.__setattr__, looked up field by
field; a maker calls each slot's descriptor, bound once, one statement a field (written out, as
dataclasses writes __init__: a loop over the fields costs a third more): about half the cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any


def frozen_maker(cls: type, given: int, from_list: bool = False) -> Callable[..., Any] | None:
    """A function making `cls` from its first `given` fields, in order (as arguments, or as one
    list of them with `from_list`), the others at their defaults; None when it cannot make what
    cls(...) makes: cls has a __post_init__ (which the maker would skip), or a field after the
    given ones has no plain default (a default_factory is called per instance)."""
    items = fields(cls)
    if hasattr(cls, "__post_init__") or any(item.default is MISSING for item in items[given:]):
        return None
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = []
    for at, item in enumerate(items):
        namespace[f"set_{at}"] = cls.__dict__[item.name].__set__
        if at < given:
            value = f"values[{at}]" if from_list else f"value_{at}"
        else:
            namespace[f"default_{at}"] = item.default
            value = f"default_{at}"
        lines.append(f"    set_{at}(made, {value})\n")
    arguments = "values" if from_list else ", ".join(f"value_{at}" for at in range(given))
    source = f"def make({arguments}):\n    made = new(cls)\n" + "".join(lines) + "    return made\n"
    exec(source, namespace)  # the source is the lines above: nothing read from outside
    return namespace["make"]
