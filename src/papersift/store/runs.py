"""The ingest-run ledger: runs, their liveness locks (run_locks) and their errors."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, cast

import orjson

from papersift import run_locks
from papersift.store.connection import Connections


class IngestRuns(Connections):
    """The ingest_runs and ingest_errors tables of a store (a part of Store)."""

    _run_locks: dict[int, IO[bytes]]

    def begin_run(self, paths: list[str]) -> int:
        """Record a 'running' ingest run, holding its liveness lock (run_locks) from before the
        row is visible; runs whose process died are marked 'interrupted' first."""
        run_id = None
        with self._write_lock:
            try:
                with self._writing("record an ingest run") as conn:
                    stale = self._mark_dead_runs(conn)
                    cursor = conn.execute(
                        "INSERT INTO ingest_runs (started_at, paths, status) VALUES (?, ?, 'running')",
                        (time.time(), orjson.dumps(paths).decode()),
                    )
                    run_id = int(cast(int, cursor.lastrowid))  # an INSERT sets it
                    self._run_locks[run_id] = run_locks.hold(run_locks.lock_path(self.data_dir, run_id))
            except BaseException:
                self._release_run(run_id)
                raise
        for path in stale:
            run_locks.remove_stale(path)
        return run_id

    def finish_run(self, run_id: int, status: str, summary: dict) -> None:
        """Store the run's final status, then drop its liveness lock (also when storing fails:
        the row then reads 'running' with no live process, and the next run marks it interrupted)."""
        try:
            with self._write_lock, self._writing("record the ingest run's result") as conn:
                conn.execute(
                    "UPDATE ingest_runs SET finished_at=?, status=?, summary=? WHERE run_id=?",
                    (time.time(), status, orjson.dumps(summary).decode(), run_id),
                )
        finally:
            self._release_run(run_id)

    def record_errors(self, run_id: int, errors: Iterable[tuple[str, str, str | None, str]]) -> None:
        """errors: (path, location, record id or None, problem)."""
        rows = [(run_id, *error) for error in errors]
        if not rows:
            return
        with self._write_lock, self._writing("record the ingest run's errors") as conn:
            conn.executemany(
                "INSERT INTO ingest_errors (run_id, path, location, record_id, problem) VALUES (?,?,?,?,?)", rows)

    def _release_run(self, run_id: int | None) -> None:
        handle = self._run_locks.pop(run_id, None) if run_id is not None else None
        if handle is not None and run_id is not None:
            run_locks.release(handle, run_locks.lock_path(self.data_dir, run_id))

    def _run_is_dead(self, run_id: int) -> bool:
        return run_id not in self._run_locks and not run_locks.is_alive(run_locks.lock_path(self.data_dir, run_id))

    def _mark_dead_runs(self, conn: sqlite3.Connection) -> list[Path]:
        """Inside a write transaction: 'running' runs of dead processes become 'interrupted'."""
        stale = []
        for (run_id,) in conn.execute("SELECT run_id FROM ingest_runs WHERE status='running'").fetchall():
            if self._run_is_dead(run_id):
                conn.execute("UPDATE ingest_runs SET status='interrupted', finished_at=? WHERE run_id=?",
                             (time.time(), run_id))
                stale.append(run_locks.lock_path(self.data_dir, run_id))
        return stale

    def runs(self) -> list[dict]:
        """Every ingest run, oldest first; a 'running' one whose process died reads 'interrupted'
        (works on a read-only store too: nothing is written)."""
        rows = [dict(row) for row in self._conn().execute(
            "SELECT run_id, started_at, finished_at, paths, status FROM ingest_runs ORDER BY run_id")]
        for row in rows:
            row["paths"] = orjson.loads(row["paths"])
            if row["status"] == "running" and self._run_is_dead(row["run_id"]):
                # The lock is dropped after the final status is committed: read it again.
                status = self._conn().execute("SELECT status FROM ingest_runs WHERE run_id=?", (row["run_id"],)).fetchone()
                row["status"] = "interrupted" if status[0] == "running" else status[0]
        return rows
