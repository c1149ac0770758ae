"""`author:` in the query language through author identities (papersift.people.identity).

`author:~Zico_Kolter1` or `author:zico-kolter` (an author id) means exactly that person's
papers. `author:"Zico Kolter"` (a name) keeps matching every author whose name has those
words, and also matches the papers of every person who is ever written that way, under any
spelling ('J. Zico Kolter', 'J Kolter'). Before `papersift authors build` has run, or on an
older store, names match as words only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from papersift.names import full_key
from papersift.store import SCHEMA_VERSION, Store

CACHED_NAMES = 512


class AuthorPapers:
    """name or author id -> (is an id, paper ids) | None; cached until the store changes."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._cache: OrderedDict[str, tuple[bool, tuple[str, ...]] | None] = OrderedDict()

    def _current_store(self) -> Store | None:
        if self._store is None:
            try:
                store = Store(self.data_dir, readonly=True)
            except FileNotFoundError:
                return None
            if store.read("PRAGMA user_version")[0][0] < SCHEMA_VERSION:
                return None
            self._store = store
        return self._store

    def __call__(self, name: str) -> tuple[bool, tuple[str, ...]] | None:
        store = self._current_store()
        if store is None:
            return None
        stamp = store.papers_and_people_stamp()  # (max_seq(), people_stamp()) in one statement
        with self._lock:
            if stamp != self._stamp:
                self._cache.clear()
                self._stamp = stamp
            if name in self._cache:
                self._cache.move_to_end(name)
                return self._cache[name]
        found = self._look_up(store, name.strip())
        with self._lock:
            self._cache[name] = found
            while len(self._cache) > CACHED_NAMES:
                self._cache.popitem(last=False)
        return found

    @staticmethod
    def _look_up(store: Store, name: str) -> tuple[bool, tuple[str, ...]] | None:
        if not name:
            return None
        exact = store.read("SELECT DISTINCT paper_id FROM paper_authors WHERE author_id=?", (name,))
        if not exact and name.startswith("~"):
            exact = store.read("SELECT DISTINCT paper_id FROM paper_authors WHERE openreview_id=?", (name,))
        if exact:
            return True, tuple(row[0] for row in exact)
        people = store.read("SELECT DISTINCT author_id FROM paper_authors WHERE name_key=? AND author_id IS NOT NULL",
                            (full_key(name),))
        if not people:
            return None
        marks = ",".join("?" * len(people))
        rows = store.read(f"SELECT DISTINCT paper_id FROM paper_authors WHERE author_id IN ({marks})",
                          [row[0] for row in people])
        return False, tuple(row[0] for row in rows)
