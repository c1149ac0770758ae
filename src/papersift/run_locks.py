"""Is the process behind an ingest run still alive? One lock file per running run says so.

A run holds an exclusive flock on `<data dir>/ingest-runs/<run id>.lock` from before its
'running' row is committed until after its final status is. The kernel drops the lock when
the process dies however it dies (SIGKILL, OOM, power cut), so a 'running' row whose lock
nobody holds belongs to a dead process: it was interrupted. Unlike a stored pid, a lock
cannot be fooled by pid reuse. Same-host only, like SQLite's WAL itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

RUNS_DIR = "ingest-runs"


def lock_path(data_dir: Path, run_id: int) -> Path:
    return data_dir / RUNS_DIR / f"{run_id}.lock"


def hold(path: Path) -> IO[bytes]:
    """Create and lock the run's file; the returned handle keeps the lock until `release`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "wb")  # noqa: SIM115 - the open handle is the lock; `release` closes it
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        handle.close()
        raise
    return handle


def release(handle: IO[bytes], path: Path) -> None:
    """Remove the file (so no debris stays), then drop the lock."""
    with contextlib.suppress(OSError):  # a read-only or full disk: the stale file is harmless, the unlocked file says "dead"
        path.unlink(missing_ok=True)
    handle.close()


@contextlib.contextmanager
def held_or_refused(path: Path, busy: Exception) -> Iterator[None]:
    """Hold the lock file for the block (one `update` or `digest` run per data dir); raise
    `busy` at once when another process holds it."""
    try:
        handle = hold(path)
    except BlockingIOError:
        raise busy from None
    try:
        yield
    finally:
        release(handle, path)


def is_alive(path: Path) -> bool:
    """True while some process holds the run's lock; False once it died (or never had one)."""
    try:
        with open(path, "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        pass  # no file: the run never got one, or it was cleaned up after its process died
    return False


def remove_stale(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
