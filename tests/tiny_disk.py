"""A real full disk for the write-path tests: a small tmpfs mounted for one test.

Mounting needs root (CI runs as root); elsewhere the tests that use it are skipped, with
the reason shown. The mount is grown with `remount,size=...` to test recovery.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def mount_tmpfs(path: Path, size: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True,
                   capture_output=True)


def resize(path: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(path)], check=True, capture_output=True)


@pytest.fixture(name="tiny_disk")
def tiny_disk_fixture(tmp_path) -> Iterator[Path]:
    """A 32 MiB tmpfs (tests resize it)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs the suite as root)")
    mount = tmp_path / "tiny-disk"
    mount.mkdir()
    mount_tmpfs(mount, "32m")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=False)


def fill_disk(mount: Path) -> Path:
    """Write a file until the disk is full; returns it (unlink it to free the space)."""
    filler = mount / "filler"
    chunk = b"\0" * (1 << 20)
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    small = bytes(4096)
    with open(filler, "ab", buffering=0) as handle:  # the last partial megabyte too
        try:
            while True:
                handle.write(small)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler
