"""One user's digest run (papersift.follow.digest.run_digests for one user): what the tests check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from papersift.component_schema import LOCAL_USER
from papersift.follow.digest import DigestReport, run_digests


def run_digest(data_dir: str | Path, *, user_id: str = LOCAL_USER, service=None, env: Mapping[str, str] | None = None,
               log: Callable[[str], None] = lambda _: None) -> DigestReport:
    """One user's run of run_digests (the local user's by default)."""
    run = run_digests(data_dir, users=[user_id], service=service, env=env, log=log)
    return run.reports.get(user_id) or DigestReport()
