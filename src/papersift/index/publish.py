"""Publishing derived indexes: one writer at a time, one rename makes a generation live.

The lexical index and every vector index live in a root folder of generations:

    <root>/CURRENT              name of the live generation (replaced with one rename)
    <root>/gen-<ns>/            a published generation: never written again
    <root>/.gen-<ns>.building   a generation being written (invisible to readers)
    <root>/.lock                held (flock) by the one writer of this root

A writer stages a whole new generation, fsyncs it, renames it to gen-<ns> and then
replaces CURRENT; a kill before that replace leaves the live generation as it was, and a
kill after it leaves the new one complete. What a killed writer leaves (staging folders,
temporary pointer files, generations no longer named by CURRENT) is debris that the next
writer removes while it holds the lock.

`fault_point` is the deterministic crash hook the publish-fault tests use: a process whose
PAPERSIFT_FAULT_AT names the step kills itself with SIGKILL when it gets there.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POINTER_FILE = "CURRENT"
LOCK_FILE = ".lock"
GENERATION_PREFIX = "gen-"
STAGING_SUFFIX = ".building"
FAULT_ENV = "PAPERSIFT_FAULT_AT"
# The steps of `publish`, in order (the lexical and vector writers add their own before these).
PUBLISH_STEPS = ("publish:synced", "publish:renamed", "publish:pointer-staged", "publish:pointer-replaced")

_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def fault_point(step: str) -> None:
    """Kill this process (SIGKILL: no cleanup, no flush) when PAPERSIFT_FAULT_AT names `step`."""
    if os.environ.get(FAULT_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def writer_lock(root: Path) -> Iterator[None]:
    """Serialize the writers of one root: across processes by flock on root/.lock, across the
    threads of this process by a lock per root (a POST /api/papers beside another one).

    flock locks belong to an open file description, so two threads with their own opens
    would also exclude each other; the thread lock makes that explicit and keeps a waiting
    thread out of a blocking system call."""
    root.mkdir(parents=True, exist_ok=True)
    with _thread_locks_guard:
        thread_lock = _thread_locks.setdefault(str(root.resolve()), threading.Lock())
    with open(root / LOCK_FILE, "a") as handle, thread_lock:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_name(root: Path) -> str | None:
    try:
        return (root / POINTER_FILE).read_text().strip() or None
    except FileNotFoundError:
        return None


def new_staging(root: Path) -> tuple[str, Path]:
    """(generation name, its empty staging folder). Call with the writer lock held."""
    name = f"{GENERATION_PREFIX}{time.time_ns()}"
    staging = root / f".{name}{STAGING_SUFFIX}"
    staging.mkdir(parents=True)
    return name, staging


def link_generation(source: Path, staging: Path, skip: tuple[str, ...] = ()) -> None:
    """Fill `staging` with hard links to the files of a published generation.

    Safe because nothing rewrites a file in place: tantivy writes new segment files and
    replaces meta.json / .managed.json by rename, the row store replaces its small files by
    rename and only appends to rows.bin past the end the published offsets cover. A file
    system without hard links gets copies (slower, same result)."""
    for path in source.iterdir():
        if path.name not in skip and path.is_file():
            try:
                os.link(path, staging / path.name)
            except OSError as error:
                if error.errno not in (errno.EPERM, errno.EXDEV, errno.EOPNOTSUPP, errno.EMLINK):
                    raise
                shutil.copy2(path, staging / path.name)


def write_atomically(path: Path, payload: bytes) -> None:
    """Replace `path` with `payload` by one rename, the data synced first."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def fsync_files(*paths: Path) -> None:
    """Sync files a writer made without syncing them (tantivy syncs its own), before publishing."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_entries(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(root: Path, staging: Path, name: str) -> Path:
    """Make a staged generation live: sync its folder, rename it into place, then replace
    CURRENT. Call with the writer lock held, its files written and synced. The generation it
    replaced is removed (open readers keep their mmaps of its files: POSIX)."""
    previous = current_name(root)
    _fsync_entries(staging)
    fault_point("publish:synced")
    folder = root / name
    os.rename(staging, folder)
    fault_point("publish:renamed")
    temporary = root / f".{POINTER_FILE}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        handle.write(name.encode())
        handle.flush()
        os.fsync(handle.fileno())
    fault_point("publish:pointer-staged")
    os.replace(temporary, root / POINTER_FILE)
    _fsync_entries(root)
    fault_point("publish:pointer-replaced")
    if previous is not None and previous != name:
        shutil.rmtree(root / previous, ignore_errors=True)
    return folder


def remove_abandoned(parent: Path, prefix: str) -> list[str]:
    """Remove the entries of `parent` named `<prefix><pid>.<...>` (a work folder or a staged file
    a process names by its pid) whose process is gone: killed mid-build, no `finally` ran.
    Returns the names removed."""
    removed = []
    for path in parent.glob(f"{prefix}*"):
        pid = path.name[len(prefix):].split(".")[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed.append(path.name)
        except PermissionError:  # alive, another user's
            pass
    return removed


def remove_debris(root: Path) -> list[str]:
    """Remove what killed writers left: staging folders, temporary files, and generations that
    CURRENT no longer names. Call with the writer lock held; returns the names removed."""
    if not root.is_dir():
        return []
    live = current_name(root)
    removed = []
    for path in root.iterdir():
        name = path.name
        stale_generation = name.startswith(GENERATION_PREFIX) and name != live and path.is_dir()
        staging = name.startswith(".") and name.endswith(STAGING_SUFFIX) and path.is_dir()
        temporary = name.startswith(".") and name.endswith(".tmp") and path.is_file()
        if stale_generation or staging:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(name)
        elif temporary:
            path.unlink(missing_ok=True)
            removed.append(name)
    return removed
