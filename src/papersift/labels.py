"""Labels people give (library tags, saved-search names): one line of plain text in one Unicode
form, so a label typed twice is one label and none can hide text or turn a line around.

They reach pages, feed titles and a digest's Subject: a control character (NUL, CR, LF), a
bidirectional override (U+202E reverses what follows on screen) or an invisible character
(U+200B zero width space, U+FEFF) is refused with one line naming it, not stored."""

from __future__ import annotations

import unicodedata

REFUSED_CATEGORIES = {"Cc": "a control character", "Cf": "an invisible or direction-changing character",
                      "Cs": "a lone surrogate", "Cn": "an unassigned character"}


def normal_label(text: str) -> str:
    """NFC, runs of whitespace collapsed to one space, trimmed (how labels are stored and looked up)."""
    return " ".join(unicodedata.normalize("NFC", str(text)).split())


def label_problem(text: str) -> str | None:
    """Why `text` (a normal_label) cannot be a label, or None."""
    for char in text:
        kind = REFUSED_CATEGORIES.get(unicodedata.category(char))
        if kind is not None:
            return f"has {kind} (U+{ord(char):04X}); labels are plain text"
    return None


def clean_label(label: str, max_chars: int, error: type[Exception], empty: str, kind: str) -> str:
    """A user's label (a tag, a saved search's name) as stored: normal_label, one line of 1 to
    `max_chars` characters of plain text; else `error` (`empty` when nothing is left)."""
    cleaned = normal_label(label)
    if not cleaned:
        raise error(empty)
    if len(cleaned) > max_chars:
        raise error(f"{kind} {cleaned[:40]!r}...: over {max_chars} characters")
    problem = label_problem(cleaned)
    if problem is not None:
        raise error(f"{kind} {cleaned[:40]!r} {problem}")
    return cleaned
