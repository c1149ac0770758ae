"""run_locks.held_or_refused: one `update` or `digest` run per data dir."""

from __future__ import annotations

import pytest

from papersift import run_locks


class Busy(RuntimeError):
    pass


def test_a_second_holder_is_refused_with_the_callers_error_and_the_lock_is_gone_after(tmp_path):
    lock = tmp_path / "update.lock"
    with run_locks.held_or_refused(lock, Busy("first")):
        assert run_locks.is_alive(lock)
        with pytest.raises(Busy, match=r"^second$"), run_locks.held_or_refused(lock, Busy("second")):
            pass
        assert run_locks.is_alive(lock)  # the refused second left the first's lock alone
    assert not lock.exists() and not run_locks.is_alive(lock)
    with run_locks.held_or_refused(lock, Busy("third")):  # free again
        assert run_locks.is_alive(lock)


def test_the_lock_is_released_when_the_block_raises(tmp_path):
    lock = tmp_path / "digest.lock"
    with pytest.raises(ZeroDivisionError), run_locks.held_or_refused(lock, Busy("busy")):
        1 / 0  # noqa: B018
    assert not run_locks.is_alive(lock)
