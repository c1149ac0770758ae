"""Why a store operation failed, in one line: the errors the store raises for faults outside
papersift (a full disk, a read-only or missing directory, a lock held too long, a damaged file).

SQLite and the OS report these as sqlite3.Error / OSError with codes; callers (the CLI, the
API) should not have to know those codes to tell a user what happened, so the store turns
them into StoreError (StorageFullError for a full disk). Errors that mean a bug in papersift
(a constraint violation, bad SQL) are not translated: they keep their traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path


class StoreError(Exception):
    """A store operation failed for a reason outside papersift; the message is one line."""


class StorageFullError(StoreError):
    """The disk (or quota) under the data directory is full. The failed transaction left nothing."""


FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
READONLY_ERRNOS = {errno.EROFS}
PERMISSION_ERRNOS = {errno.EACCES, errno.EPERM}
NOT_A_DIRECTORY_ERRNOS = {errno.ENOTDIR, errno.EEXIST}


def translate(exc: BaseException, where: Path, action: str) -> StoreError | None:
    """The StoreError for `exc` raised while trying to `action` in `where`, or None (a bug: re-raise)."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return _from_sqlite(exc, where, action)
    if isinstance(exc, OSError):
        return _from_os(exc, where, action)
    return None


def _from_sqlite(exc: sqlite3.Error, where: Path, action: str) -> StoreError | None:
    name = getattr(exc, "sqlite_errorname", "") or ""
    detail = str(exc).splitlines()[0] if str(exc) else name
    if name.startswith("SQLITE_FULL"):
        return StorageFullError(f"disk full: cannot {action} in {where}; nothing of this write was kept")
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) and on_read_only_fs(where):
        return StoreError(f"cannot {action}: {where} is on a read-only file system")
    if name.startswith("SQLITE_READONLY"):
        return StoreError(f"cannot {action}: {where} is read-only ({detail})")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(f"cannot {action}: another process held the store in {where} too long ({detail}); try again")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")):
        return StoreError(f"cannot {action} in {where} ({detail}); check that it is a writable directory")
    if name.startswith("SQLITE_IOERR"):
        return StoreError(f"cannot {action}: I/O error in {where} ({detail})")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StoreError(f"cannot {action}: the store in {where} is damaged or not a papersift store ({detail})")
    return None


def on_read_only_fs(where: Path) -> bool:
    try:
        return bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _from_os(exc: OSError, where: Path, action: str) -> StoreError:
    reason = exc.strerror or str(exc)
    target = exc.filename or where
    if exc.errno in FULL_ERRNOS:
        return StorageFullError(f"disk full: cannot {action} in {where} ({reason}); nothing of this write was kept")
    if exc.errno in READONLY_ERRNOS:
        return StoreError(f"cannot {action}: {target} is on a read-only file system")
    if exc.errno in PERMISSION_ERRNOS:
        return StoreError(f"cannot {action}: permission denied on {target}")
    if exc.errno in NOT_A_DIRECTORY_ERRNOS:
        return StoreError(f"cannot {action}: data directory {where} (or a folder above it) is not a directory")
    return StoreError(f"cannot {action} in {where}: {reason}")
