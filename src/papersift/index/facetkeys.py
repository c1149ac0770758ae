"""Facet keys: the vocabulary that the lexical index (lexical.py), its row store (rows.py) and
the facet counts (search/facets.py) share."""

from __future__ import annotations

from papersift.record import Paper

# The six facet fields fall in groups; a paper's values in a group, joined by
# FACET_SEPARATOR, form its facet key in that group, and the group's fast column holds
# the key's code (rows.py keeps the keys). One terms aggregation per group counts all
# five facets, and the total. Grouping keeps the buckets few: one key of all five had
# ~3,700 distinct values once every paper got a (predicted) topic, these have ~130 + ~85.
FACET_GROUPS = {
    "publication_code": ("venue", "year", "status", "code"),
    "topic_code": ("area", "subarea"),
}
FACET_CODE_FIELDS = tuple(FACET_GROUPS)
# facet field -> (its group's number, its place in the group's key)
FACET_POSITION = {name: (group, at) for group, fields in enumerate(FACET_GROUPS.values())
                  for at, name in enumerate(fields)}
FACET_SEPARATOR = "\x1f"
HAS_CODE = "yes"  # the `code` facet's one value: the paper has a code link (record.code_url)


def facet_value(paper: Paper, name: str) -> object:
    """The paper's value of a facet field (None: none)."""
    if name == "code":
        return HAS_CODE if paper.code_url else None
    return getattr(paper, name)


def facet_keys(paper: Paper) -> tuple[str, ...]:
    """The paper's facet key in each group: its values of the group's fields joined by
    FACET_SEPARATOR ("" for a missing value)."""
    return tuple(FACET_SEPARATOR.join("" if value is None else str(value)
                                      for value in (facet_value(paper, name) for name in fields))
                 for fields in FACET_GROUPS.values())
