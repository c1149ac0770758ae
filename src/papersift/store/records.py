"""Record <-> row: a paper's row and author rows, the merge policy of records of one paper,
and what an upsert batch resolves to (added, updated, merged into another, unchanged)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

import orjson

from papersift.names import block_key, full_key
from papersift.record import PAPER_FIELDS, Paper
from papersift.store_errors import StoreError

JSON_LIST_FIELDS = ("authors", "keywords", "author_ids", "affiliations")


@dataclass
class UpsertCounts:
    added: int = 0
    updated: int = 0
    merged: int = 0
    unchanged: int = 0

    def __iadd__(self, other: UpsertCounts) -> UpsertCounts:
        self.added += other.added
        self.updated += other.updated
        self.merged += other.merged
        self.unchanged += other.unchanged
        return self

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.merged


@dataclass
class Catalog:
    """What one upsert batch needs to know of the store, read inside its write transaction.

    Only the batch's own ids and dedupe keys are looked up (indexed queries, a few ms per
    2,000 papers), so memory does not grow with the store: an earlier version kept every
    record id, paper id and dedupe key in dicts (~0.6 KB a paper, ~6 GB at 10 M papers).
    Read under the write lock, it always reflects every other writer's commits.
    """

    records: dict[str, tuple[str, str]] = field(default_factory=dict)  # record id -> (paper id, hash)
    paper_keys: dict[str, str] = field(default_factory=dict)  # paper id -> dedupe key
    by_key: dict[str, str] = field(default_factory=dict)  # dedupe key -> paper id (the oldest paper)


def paper_from_row(row: sqlite3.Row) -> Paper:
    """The paper of a row. A store not yet migrated (opened read-only: a served snapshot, or
    `index` reading a store written by an older papersift) lacks the newer columns: those
    fields keep their defaults until a writer migrates it."""
    try:
        values = {name: row[name] for name in PAPER_FIELDS}
    except IndexError:
        columns = set(row.keys())
        values = {name: row[name] for name in PAPER_FIELDS if name in columns}
    for name in JSON_LIST_FIELDS:
        if name in values:
            values[name] = tuple(orjson.loads(values[name]))
    return Paper(**values)


def row_values(paper: Paper, seq: int) -> tuple:
    return (
        paper.id, seq, paper.dedupe_key(), paper.content_hash(), paper.title,
        orjson.dumps(list(paper.authors)).decode(), paper.abstract, paper.venue, paper.year,
        paper.area, paper.subarea, orjson.dumps(list(paper.keywords)).decode(), paper.url,
        paper.pdf, paper.status, paper.track, paper.tldr, paper.source,
        orjson.dumps(list(paper.author_ids)).decode(), orjson.dumps(list(paper.affiliations)).decode(),
        paper.citations, paper.citations_as_of, paper.code_url,
    )


def author_rows(paper_id: str, authors: tuple[str, ...] | list[str], author_ids, affiliations) -> list[tuple]:
    """paper_authors rows for one paper; ids and affiliations only when they pair up with the names."""
    ids = author_ids if len(author_ids) == len(authors) else ()
    affs = affiliations if len(affiliations) == len(authors) else ()
    return [(paper_id, position, name, full_key(name), block_key(name),
             (ids[position] if ids and ids[position].startswith("~") else None),
             (affs[position] or None) if affs else None)
            for position, name in enumerate(authors)]


INSERT_AUTHOR = ("INSERT INTO paper_authors (paper_id, position, name, name_key, block_key, openreview_id, affiliation)"
                 " VALUES (?,?,?,?,?,?,?)")


_COLUMNS = ("id", "seq", "dedupe_key", "content_hash", "title", "authors", "abstract", "venue", "year", "area",
            "subarea", "keywords", "url", "pdf", "status", "track", "tldr", "source",
            "author_ids", "affiliations", "citations", "citations_as_of", "code_url")
# An upsert on id, not INSERT OR REPLACE: with seq UNIQUE, OR REPLACE would silently delete
# whichever paper held a clashing seq; here a clash raises instead.
INSERT_PAPER = (
    f"INSERT INTO papers ({', '.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})"
    f" ON CONFLICT(id) DO UPDATE SET {', '.join(f'{name}=excluded.{name}' for name in _COLUMNS[1:])}"
)


def merge_papers(base: Paper, extra: Paper, extra_wins: bool) -> Paper:
    """Combine two records of one paper. Empty values never erase filled ones."""
    changes = {}
    for name in PAPER_FIELDS:
        if name == "id":
            continue
        base_value, extra_value = getattr(base, name), getattr(extra, name)
        if extra_value in (None, (), "") or extra_value == base_value:
            continue
        if extra_wins or base_value in (None, (), ""):
            changes[name] = extra_value
    return replace(base, **changes) if changes else base


def fold_same_id(earlier: Paper, later: Paper) -> Paper:
    """The rule for two records with one id in one batch (one POST, one ingest run): the first
    record wins and the later one only fills fields the first left empty. Sources list some
    papers twice, the second copy often sparser or older; "first wins" also keeps a re-run of
    the same input a no-op. A later batch or run updates instead (its values win)."""
    return merge_papers(earlier, later, extra_wins=False)


# Ids per IN (...) lookup: under SQLite's smallest host-parameter limit (999).
_LOOKUP_CHUNK = 900


def read_catalog(conn: sqlite3.Connection, papers: list[Paper]) -> Catalog:
    """The catalog entries of a batch: its ids' source records and papers, and the stored
    papers that hold its dedupe keys (the oldest first, as ingest merges into it)."""
    catalog = Catalog()
    ids = list(dict.fromkeys(paper.id for paper in papers))
    keys = list(dict.fromkeys(paper.dedupe_key() for paper in papers))
    for chunk in chunks(ids):
        marks = ",".join("?" * len(chunk))
        for record_id, paper_id, content_hash in conn.execute(
                f"SELECT record_id, paper_id, content_hash FROM source_records WHERE record_id IN ({marks})", chunk):
            catalog.records[record_id] = (paper_id, content_hash)
        for paper_id, key in conn.execute(f"SELECT id, dedupe_key FROM papers WHERE id IN ({marks})", chunk):
            catalog.paper_keys[paper_id] = key
    for chunk in chunks(keys):
        marks = ",".join("?" * len(chunk))
        for key, paper_id in conn.execute(
                f"SELECT dedupe_key, id FROM papers WHERE dedupe_key IN ({marks}) ORDER BY rowid", chunk):
            catalog.by_key.setdefault(key, paper_id)
    return catalog


def chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _LOOKUP_CHUNK):
        yield items[start:start + _LOOKUP_CHUNK]


def write_authors(conn: sqlite3.Connection, papers: Iterable[Paper]) -> None:
    papers = list(papers)
    conn.executemany("DELETE FROM paper_authors WHERE paper_id=?", [(paper.id,) for paper in papers])
    conn.executemany(INSERT_AUTHOR, [row for paper in papers for row in
                                     author_rows(paper.id, paper.authors, paper.author_ids, paper.affiliations)])


def fold_batch(papers: Iterable[Paper], counts: UpsertCounts) -> list[Paper]:
    """The batch with one record per id (read before the write lock is taken)."""
    folded: dict[str, Paper] = {}
    for paper in papers:
        earlier = folded.get(paper.id)
        if earlier is None:
            folded[paper.id] = paper
            continue
        combined = fold_same_id(earlier, paper)
        if combined == earlier:
            counts.unchanged += 1
        folded[paper.id] = combined
    return list(folded.values())


def resolve(batch: list[Paper], catalog: Catalog, counts: UpsertCounts,
            get_exact: Callable[[str], Paper | None]) -> tuple[dict[str, Paper], list[tuple[str, str, str]]]:
    """(papers to write by id, source_records rows); updates the catalog to match."""
    pending: dict[str, Paper] = {}
    record_rows: list[tuple[str, str, str]] = []
    for paper in batch:
        content_hash = paper.content_hash()
        previous = catalog.records.get(paper.id)
        if previous and previous[1] == content_hash:
            counts.unchanged += 1
            continue
        target_id = target_for(paper, previous, catalog)
        if target_id is None:
            stored, counts.added = paper, counts.added + 1
        else:
            current = pending.get(target_id) or get_exact(target_id)
            if current is None:  # only a damaged store has a record pointing at no paper
                raise StoreError(f"record {paper.id} points at paper {target_id}, which the store lacks")
            stored = merge_papers(current, paper, extra_wins=(target_id == paper.id))
            if target_id != paper.id:
                counts.merged += 1
            elif stored != current:
                counts.updated += 1
            else:
                counts.unchanged += 1
            if stored == current:
                stored = None
        if stored is not None:
            pending[stored.id] = stored
            catalog.paper_keys[stored.id] = stored.dedupe_key()
            catalog.by_key.setdefault(stored.dedupe_key(), stored.id)
        resolved_id = target_id or paper.id
        catalog.records[paper.id] = (resolved_id, content_hash)
        record_rows.append((paper.id, resolved_id, content_hash))
    return pending, record_rows


def target_for(paper: Paper, previous: tuple[str, str] | None, catalog: Catalog) -> str | None:
    if previous:
        return previous[0]
    if paper.id in catalog.paper_keys:
        return paper.id
    return catalog.by_key.get(paper.dedupe_key())
