"""Which addresses processes listen on: the loopback-only checks of the cluster and Dask drills."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable


def listening_addresses(pids: Iterable[int]) -> list[str]:
    """`host:port` of every listening TCP socket owned by `pids` (via `ss -tlnp`)."""
    wanted = {str(pid) for pid in pids}
    output = subprocess.run(["ss", "-tlnpH"], capture_output=True, text=True, check=True).stdout
    addresses = []
    for line in output.splitlines():
        parts = line.split()
        if any(f"pid={pid}," in line for pid in wanted) and len(parts) >= 4:
            addresses.append(parts[3])
    return addresses
