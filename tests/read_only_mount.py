"""A data dir the tests cannot write, for real: a read-only bind mount (root ignores
permission bits, so chmod would prove nothing), or, for a user who cannot mount, a tree
without write permission (which binds that user)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def read_only_view(source: Path, mount_point: Path) -> Iterator[Path]:
    """`source` seen read-only; yields the path to use."""
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(source)], check=True)
        try:
            yield source
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(source)], check=True)
        return
    mount_point.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "--bind", str(source), str(mount_point)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount_point)], check=True)
        probe = mount_point / ".write-probe"
        try:
            probe.touch()
        except OSError:
            pass
        else:
            raise AssertionError(f"{mount_point} is writable after a read-only remount")
        yield mount_point
    finally:
        subprocess.run(["umount", "--lazy", str(mount_point)], check=True)
