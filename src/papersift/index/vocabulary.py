"""The corpus vocabulary: each word of the papers' titles, abstracts and keywords with the
number of papers that use it (D/vocabulary.tsv), what "did you mean" corrects typed words
against (search/spelling.py).

`papersift index` writes it when the store has changed since it was written (one pass over
the papers, ~4-8 s for 44,693 on two busy cores) and publishes it by one rename; serving only
reads it. Words of at least three letters used by at least MIN_PAPERS papers are kept (24,128
words for the shared corpus): a word one paper uses is as likely a typo as a term.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from papersift.index.publish import write_atomically

VOCABULARY_FILE = "vocabulary.tsv"
HEADER = "#papersift-vocabulary"
MIN_PAPERS = 2
WORD = re.compile(r"[a-z]{3,}")


@dataclass(frozen=True, slots=True)
class VocabularyStats:
    words: int
    seconds: float


def vocabulary_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / VOCABULARY_FILE


def count_words(texts) -> Counter[str]:
    """Papers per word (lower-cased ASCII words of three letters or more)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(WORD.findall(text.lower())))
    return counts


def covered(data_dir: str | Path) -> tuple[int, int] | None:
    """(papers, last seq) the written vocabulary covers, None when there is none."""
    path = vocabulary_path(data_dir)
    try:
        with open(path, encoding="utf-8") as handle:
            fields = handle.readline().rstrip("\n").split("\t")
    except FileNotFoundError:
        return None
    if len(fields) != 3 or fields[0] != HEADER:
        return None
    return int(fields[1]), int(fields[2])


def build(data_dir: str | Path, texts, total: int, last_seq: int) -> VocabularyStats:
    started = time.perf_counter()
    counts = count_words(texts)
    kept = sorted((word, n) for word, n in counts.items() if n >= MIN_PAPERS)
    lines = [f"{HEADER}\t{total}\t{last_seq}", *(f"{word}\t{n}" for word, n in kept)]
    path = vocabulary_path(data_dir)
    for debris in path.parent.glob(f".{path.name}.*.tmp"):  # left by a killed run (publish.write_atomically)
        debris.unlink(missing_ok=True)
    write_atomically(path, ("\n".join(lines) + "\n").encode())
    return VocabularyStats(len(kept), time.perf_counter() - started)


def build_for_store(data_dir: str | Path, force: bool = False) -> VocabularyStats | None:
    """Write the store's vocabulary when it is missing or stale (None: up to date)."""
    from papersift.store import Store

    store = Store(Path(data_dir), readonly=True)
    try:
        total, last_seq = store.count(), store.max_seq()
        if not force and covered(data_dir) == (total, last_seq):
            return None
        texts = (f"{paper.title} {paper.abstract or ''} {' '.join(paper.keywords)}" for _, paper in store.iter_papers(0))
        return build(data_dir, texts, total, last_seq)
    finally:
        store.close()


def read(data_dir: str | Path) -> dict[str, int]:
    """word -> papers, from the written file ({} when there is none)."""
    words: dict[str, int] = {}
    try:
        with open(vocabulary_path(data_dir), encoding="utf-8") as handle:
            if not handle.readline().startswith(HEADER):
                return words
            for line in handle:
                word, _, count = line.rstrip("\n").partition("\t")
                if count.isdigit():
                    words[word] = int(count)
    except FileNotFoundError:
        pass
    return words
