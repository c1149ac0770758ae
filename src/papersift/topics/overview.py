"""Every paper with its topic for browsing: the source label when there is one, else the prediction."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from papersift.index.predictions import PredictionStore
from papersift.store import Store

UNKNOWN_AREA = "Unassigned"
# matplotlib's tab10, so the page and the PNG charts color areas alike.
AREA_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf")
UNKNOWN_COLOR = "#bbbbbb"


@dataclass(frozen=True)
class TopicRow:
    paper_id: str
    title: str
    venue: str | None
    year: int | None
    area: str
    subarea: str | None
    predicted: bool  # False: the source's own label
    confidence: float | None  # of a prediction


def topic_rows(data_dir: str | Path) -> list[TopicRow]:
    """One row per paper of the store, in store order."""
    store = Store(data_dir, readonly=True)
    try:
        papers = [paper for _, paper in store.iter_papers()]
    finally:
        store.close()
    with PredictionStore(data_dir, readonly=True) as predictions:
        predicted = {p.paper_id: p for p in predictions.all()}
    rows = []
    for paper in papers:
        guess = predicted.get(paper.id)
        if paper.area:
            area, subarea, is_predicted, confidence = paper.area, paper.subarea, False, None
        elif guess is not None:
            area, subarea, is_predicted, confidence = guess.area, guess.subarea, True, guess.confidence
        else:
            area, subarea, is_predicted, confidence = UNKNOWN_AREA, None, False, None
        rows.append(TopicRow(paper.id, paper.title, paper.venue, paper.year, area, subarea, is_predicted, confidence))
    return rows


def area_order(rows: list[TopicRow]) -> list[str]:
    """Areas by paper count, largest first (the unassigned bucket last)."""
    counts = Counter(row.area for row in rows)
    return sorted(counts, key=lambda area: (area == UNKNOWN_AREA, -counts[area], area))


def counts_by(rows: list[TopicRow], key: str) -> dict[str, dict[object, int]]:
    """{area: {year or venue: papers}} for the trend charts."""
    table: dict[str, dict[object, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        value = getattr(row, key)
        if value is not None:
            table[row.area][value] += 1
    return {area: dict(sorted(values.items())) for area, values in table.items()}


def area_colors(areas: list[str]) -> dict[str, str]:
    """A color per area, in the given order (the unassigned bucket grey)."""
    colors, position = {}, 0
    for area in areas:
        if area == UNKNOWN_AREA:
            colors[area] = UNKNOWN_COLOR
        else:
            colors[area] = AREA_PALETTE[position % len(AREA_PALETTE)]
            position += 1
    return colors
