"""Author-name normalization shared by the store (its author index) and the identity rules.

'Adam Prügel-Bennett', 'adam prugel bennett' and 'A. Prugel-Bennett' differ in case, accents,
punctuation and initials; `name_tokens` removes the first three differences, `block_key`
(surname + first initial) the fourth, so spellings of one person land in one block.
"""

from __future__ import annotations

import re
import unicodedata

SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "phd", "md"}
PARTICLES = {"van", "von", "der", "de", "den", "del", "della", "da", "di", "du", "le", "la", "dos", "das", "ter", "ten"}


def name_tokens(name: str) -> list[str]:
    """Lower-case, accent-free word tokens; hyphens and dots split ('J.-P. Vert' -> j, p, vert)."""
    if name.isascii():  # NFKD leaves ASCII as it is and splits off no accent: most names
        folded = name.lower()
    else:
        folded = unicodedata.normalize("NFKD", name).casefold()
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    tokens = re.findall(r"[^\W_]+", folded)
    while len(tokens) > 1 and tokens[-1] in SUFFIXES:
        tokens.pop()
    return tokens


def split_name(name: str) -> tuple[list[str], str]:
    """(given-name tokens, surname). 'Last, First' is turned around; particles join the surname
    ('Ludwig van Beethoven' -> ['ludwig'], 'van beethoven')."""
    if name.count(",") == 1:
        last, first = name.split(",")
        name = f"{first} {last}"
    tokens = name_tokens(name)
    if not tokens:
        return [], ""
    cut = len(tokens) - 1
    while cut > 1 and tokens[cut - 1] in PARTICLES:
        cut -= 1
    return tokens[:cut], " ".join(tokens[cut:])


def full_key(name: str) -> str:
    """Exact spelling up to case, accents and punctuation: 'Adam Prügel-Bennett' -> 'adam prugel bennett'."""
    given, surname = split_name(name)
    return " ".join([*given, surname]).strip()


def block_key(name: str) -> str:
    """Surname + first initial: 'J. Zico Kolter' -> 'kolter j'. Candidates for one identity share it."""
    given, surname = split_name(name)
    return f"{surname} {given[0][0]}" if given else surname
