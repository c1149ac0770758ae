"""The co-author graph on an author page: a small SVG drawn on the server from the profile.

The author sits in the middle; the most frequent co-authors (people.profiles.GRAPH_COAUTHORS)
on a ring around, most frequent first, clockwise from the top. A spoke's width grows with the
papers the two wrote together; a chord joins two co-authors who share papers of this author.
A fixed ring instead of a force layout: nothing to compute per request past the profile, the
same picture on every load, and labels that never overlap the middle.

Every name is escaped (markupsafe) and each co-author is a link to their page; colours come
from style.css classes, so dark mode and the CSP (no inline style) both hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from markupsafe import Markup, escape

from papersift.people.profiles import GRAPH_COAUTHORS

WIDTH, HEIGHT = 640, 380
RING = 120  # px from the middle
LABEL_CHARS = 22


def _short(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def _anchor(cos: float) -> str:
    return "start" if cos > 0.2 else "end" if cos < -0.2 else "middle"


def coauthor_svg(profile: dict, link: Callable[[str], str], title: str, papers_label: str) -> Markup:
    """The graph of `profile` (author_profile's dict); `link(author id)` is a co-author's page."""
    ring = profile["coauthors"][:GRAPH_COAUTHORS]
    if not ring:
        return Markup("")
    cx, cy = WIDTH / 2, HEIGHT / 2
    most = max(person["papers"] for person in ring)
    place = {}
    for at, person in enumerate(ring):
        angle = -math.pi / 2 + 2 * math.pi * at / len(ring)
        place[person["id"]] = (cx + RING * math.cos(angle), cy + RING * math.sin(angle), math.cos(angle), math.sin(angle))
    parts = [(f'<svg class="coauthor-graph" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
              f'aria-labelledby="coauthor-graph-title">'),
             f'<title id="coauthor-graph-title">{escape(title)}</title>']
    for chord in profile.get("coauthor_links", []):
        if chord["a"] in place and chord["b"] in place:
            (x1, y1, *_), (x2, y2, *_) = place[chord["a"]], place[chord["b"]]
            parts.append(f'<line class="chord" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                         f'stroke-width="{1 + 2 * chord["papers"] / most:.1f}"/>')
    for person in ring:
        x, y, *_ = place[person["id"]]
        parts.append(f'<line class="spoke" x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" '
                     f'stroke-width="{1 + 5 * person["papers"] / most:.1f}"/>')
    parts.append(f'<circle class="me" cx="{cx:.1f}" cy="{cy:.1f}" r="14"/>'
                 f'<text class="me-label" x="{cx:.1f}" y="{cy + 30:.1f}" text-anchor="middle">'
                 f'{escape(_short(profile["name"]))}</text>')
    for person in ring:
        x, y, cos, sin = place[person["id"]]
        radius = 5 + 7 * math.sqrt(person["papers"] / most)
        label_x, label_y = x + (radius + 5) * cos, y + (radius + 5) * sin + 4 + (8 * sin if abs(cos) <= 0.2 else 0)
        parts.append(
            f'<a class="coauthor" href="{escape(link(person["id"]))}">'
            f'<title>{escape(person["name"])}: {person["papers"]} {escape(papers_label)}</title>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}"/>'
            f'<text x="{label_x:.1f}" y="{label_y:.1f}" text-anchor="{_anchor(cos)}">'
            f'{escape(_short(person["name"]))} ({person["papers"]})</text></a>')
    parts.append("</svg>")
    return Markup("".join(parts))
