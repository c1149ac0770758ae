"""Static charts: the topic map (2-D projection colored by area) and topic trends (PNG or SVG)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
import numpy as np

from papersift.topics.overview import UNKNOWN_AREA, area_colors, area_order, counts_by, topic_rows
from papersift.topics.projection import map_points, neighbour_agreement

FORMATS = (".png", ".svg")


def _check_output(output: Path) -> None:
    if output.suffix.lower() not in FORMATS:
        raise ValueError(f"output {output}: use a .png or .svg file name")
    output.parent.mkdir(parents=True, exist_ok=True)


def plot_topic_map(data_dir: str | Path, output: Path, method: str = "auto") -> dict:
    _check_output(output)
    points = map_points(data_dir, method)
    method = points.method
    rows = {row.paper_id: row for row in topic_rows(data_dir)}
    kept = [i for i, paper_id in enumerate(points.paper_ids) if paper_id in rows]
    areas_of_points = [rows[points.paper_ids[i]].area for i in kept]
    order = area_order([rows[points.paper_ids[i]] for i in kept])
    colors = area_colors(order)
    xy = points.xy[kept]
    figure, axes = plt.subplots(figsize=(11, 9), dpi=110)
    area_array = np.array(areas_of_points)
    for area in reversed(order):  # largest area drawn first, small ones stay visible on top
        mask = area_array == area
        axes.scatter(xy[mask, 0], xy[mask, 1], s=2, alpha=0.5, color=colors[area], linewidths=0,
                     label=f"{area} ({int(mask.sum()):,})", rasterized=True)
    predicted = sum(rows[points.paper_ids[i]].predicted for i in kept)
    axes.set_title(f"papersift topic map: {len(kept):,} papers ({method.upper()} of embeddings; "
                   f"{predicted:,} areas predicted)")
    axes.set_xticks([])
    axes.set_yticks([])
    handles, labels = axes.get_legend_handles_labels()
    legend = axes.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.01, 1.0), markerscale=6,
                         frameon=False, fontsize=9)
    for handle in legend.legend_handles:
        if handle is not None:
            handle.set_alpha(1.0)
    figure.savefig(output, bbox_inches="tight")
    plt.close(figure)
    labeled = [i for i in kept if not rows[points.paper_ids[i]].predicted and rows[points.paper_ids[i]].area != UNKNOWN_AREA]
    agreement = neighbour_agreement(points.xy[labeled], [rows[points.paper_ids[i]].area for i in labeled])
    return {"output": str(output), "points": len(kept), "method": method, "predicted": predicted,
            "labeled_points": len(labeled), "labeled_10nn_area_agreement": round(agreement, 4),
            "areas": {area: int((area_array == area).sum()) for area in order}}


def plot_topic_trends(data_dir: str | Path, output: Path) -> dict:
    _check_output(output)
    rows = topic_rows(data_dir)
    if not rows:
        raise ValueError(f"no papers in {data_dir}")
    order = area_order(rows)
    colors = area_colors(order)
    by_year, by_venue = counts_by(rows, "year"), counts_by(rows, "venue")
    years = sorted(cast("set[int]", {year for counts in by_year.values() for year in counts}))
    venues = sorted({venue for counts in by_venue.values() for venue in counts},
                    key=lambda v: -sum(counts.get(v, 0) for counts in by_venue.values()))
    figure, (year_axes, venue_axes) = plt.subplots(2, 1, figsize=(12, 10), dpi=110,
                                                   gridspec_kw={"height_ratios": [3, 2]})
    year_series = [[by_year.get(area, {}).get(year, 0) for year in years] for area in order]
    year_axes.stackplot(years, year_series, labels=order, colors=[colors[a] for a in order], alpha=0.9)
    year_axes.set_title("Papers per area per year (source labels, else predicted)")
    year_axes.set_xlabel("year")
    year_axes.set_ylabel("papers")
    year_axes.legend(loc="upper left", fontsize=8, frameon=False)
    left = np.zeros(len(venues))
    for area in order:
        widths = np.array([by_venue.get(area, {}).get(venue, 0) for venue in venues], dtype=float)
        venue_axes.barh(venues, widths, left=left, color=colors[area], label=area)
        left += widths
    venue_axes.invert_yaxis()
    venue_axes.set_title("Papers per area per venue")
    venue_axes.set_xlabel("papers")
    figure.tight_layout()
    figure.savefig(output)
    plt.close(figure)
    return {
        "output": str(output), "papers": len(rows), "areas": order,
        "by_year": {area: {str(k): v for k, v in by_year.get(area, {}).items()} for area in order},
        "by_venue": {area: by_venue.get(area, {}) for area in order},
    }


def store_topic_trends(data_dir: str | Path) -> dict:
    """Draw the trends chart into the data dir, replacing the old one atomically (a reader
    never sees half a file): the server serves this file and never draws."""
    import os

    from papersift.topics.files import stored_trends_path

    target = stored_trends_path(data_dir)
    temporary = target.with_name(f".trends.{os.getpid()}.tmp.svg")
    try:
        summary = plot_topic_trends(data_dir, temporary)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return {**summary, "output": str(target)}
