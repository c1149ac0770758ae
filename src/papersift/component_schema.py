"""Tables a component (the library, saved searches and digests) owns in the store's database.

The store migrates its own tables (store/schema.py, PRAGMA user_version); a component that keeps
user data beside the papers has its own ordered migrations and records how far it got in
the store's `meta` table under a key of its own, so components and the store evolve apart
and a store that never had the component gains its tables at the first write.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from papersift.pausepoints import pause_point
from papersift.store import Store
from papersift.store.migrations import MetaKey, Migration, Migrations, run_script, script_step

__all__ = ["LOCAL_USER", "ComponentSchema", "Migration", "UserTables", "run_script", "script_step"]

LOCAL_USER = "local"  # the one user of a personal install (accounts add others)


class ComponentSchema:
    """A component's migrations (`migrations`: (version reached, step) in order), its version
    recorded in the store's `meta` row `key`; the runner is store/migrations.py's."""

    def __init__(self, key: str, migrations: Sequence[tuple[int, Migration]]):
        self.key = key
        self.slot = MetaKey(key)
        self.runner = Migrations(self.slot, migrations)
        self.migrations = self.runner.steps
        self.latest = self.runner.latest

    def stored_version(self, store: Store) -> int:
        """The recorded version, read outside a transaction."""
        return self.slot.read_with(store.read)

    def ensure(self, store: Store, action: str) -> None:
        """Bring a writable store's tables for this component up to date (one transaction;
        the version is read again under the lock, as another process may have done it)."""
        if not store.readonly and self.stored_version(store) < self.latest:
            with store.transaction(action) as conn:
                self.runner.apply(conn)


class UserTables:
    """One user's rows of a component in one data dir's store; a writable store gets the
    component's tables (or their migrations) on opening."""

    SCHEMA: ClassVar[ComponentSchema]
    # A write on a read-only store raises WRITE_ERROR(READ_ONLY_MESSAGE); the drills stop a
    # write at COMMIT_PAUSE, before its commit (papersift.pausepoints).
    WRITE_ERROR: ClassVar[type[Exception]]
    READ_ONLY_MESSAGE: ClassVar[str]
    COMMIT_PAUSE: ClassVar[str]

    def __init__(self, store: Store, user_id: str = LOCAL_USER):
        self.store = store
        self.user_id = user_id
        self.SCHEMA.ensure(store, f"create the tables of {self.SCHEMA.key}")

    @classmethod
    def open(cls, data_dir: str | Path, readonly: bool = False, user_id: str = LOCAL_USER):
        return cls(Store(data_dir, readonly=readonly), user_id)

    _known_version = 0  # the stored version once it reached the latest (versions only go up)

    @contextmanager
    def _writing(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction on the store (the component's rows and the store's own)."""
        if self.store.readonly:
            raise self.WRITE_ERROR(self.READ_ONLY_MESSAGE)
        with self.store.transaction(action) as conn:
            yield conn
            pause_point(self.COMMIT_PAUSE)

    def _stored_version(self) -> int:
        """The recorded version: read until it is the latest, then remembered (a request asks
        before every read, and a read-only store may see another process create the tables)."""
        if self._known_version < self.SCHEMA.latest:
            self._known_version = self.SCHEMA.stored_version(self.store)
        return self._known_version
