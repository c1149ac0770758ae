"""Reading an author's affiliation: the institution it names, folded so that spellings of one
institution compare equal. The identity rule uses it as evidence, venue pages count by it."""

from __future__ import annotations

import re


def institution(affiliation: str) -> str:
    """The first institution of an affiliation, folded: 'Dept. of CS, MIT+Google' -> 'dept of cs mit'."""
    return " ".join(re.findall(r"\w+", affiliation.split("+")[0].casefold()))
