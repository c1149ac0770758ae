"""Which papers have a topic, and where it comes from: the source's own label or a prediction.

Only some source lists give a paper's Area · Subarea (ICLR 2024 in the shared corpus: ~2,000 of
44,693 papers); papersift predicts it for the rest (topics/predict.py, kept apart from the
labels). Pages say so plainly (the topic browser, the area facet, the status page): how many
papers carry their source's label, from which lists, how many a predicted one, how many none yet.

Read from the store and the predictions table (a GROUP BY over the papers: tens of ms), once per
keyword-index generation: the facets count what that generation indexed, and new predictions reach
it through a new generation (`topics predict` re-indexes).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from papersift.index.lexical import index_root
from papersift.index.predictions import PredictionStore
from papersift.index.publish import current_name
from papersift.store import DB_FILE, Store


@dataclass(frozen=True)
class TopicCoverage:
    papers: int
    labelled: int  # the source lists the paper's topic
    predicted: int  # a classifier's prediction (no source label)
    labelled_lists: tuple[str, ...] = ()  # "ICLR 2024": the venue-years whose lists give topics
    labelled_by_area: dict[str, int] = field(default_factory=dict)

    @property
    def without(self) -> int:
        return max(0, self.papers - self.labelled - self.predicted)


def read_coverage(data_dir: str | Path) -> TopicCoverage:
    data_dir = Path(data_dir)
    if not (data_dir / DB_FILE).exists():
        return TopicCoverage(0, 0, 0)
    store = Store(data_dir, readonly=True)
    try:
        papers = store.count()
        rows = store.source_topics()
    finally:
        store.close()
    with PredictionStore(data_dir, readonly=True) as predictions:
        predicted = predictions.count()
    by_list: Counter = Counter()
    by_area: Counter = Counter()
    for venue, year, area, count in rows:
        by_list[" ".join(str(part) for part in (venue, year) if part is not None) or "?"] += count
        by_area[area] += count
    return TopicCoverage(papers, sum(by_area.values()), predicted,
                         tuple(name for name, _ in by_list.most_common()), dict(by_area))


class CoverageMemo:
    """read_coverage of a data dir, read again only when the keyword index has a new generation."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self._key: str | None = None
        self._coverage: TopicCoverage | None = None

    def __call__(self) -> TopicCoverage:
        key = current_name(index_root(self.data_dir)) or ""
        with self._lock:
            if self._coverage is None or key != self._key:
                self._coverage, self._key = read_coverage(self.data_dir), key
            return self._coverage
