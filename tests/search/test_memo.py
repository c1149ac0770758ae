"""search/memo.py: computed once per key while remembered, least recently used first out,
and a failed computation is not remembered."""

from __future__ import annotations

import pytest

from papersift.search.memo import Memo


def test_a_key_is_computed_once_and_the_least_recent_goes_first():
    memo: Memo[int] = Memo(maxsize=2)
    calls: list[str] = []

    def compute(key: str):
        return lambda: calls.append(key) or len(calls)

    assert memo.get("a", compute("a")) == 1
    assert memo.get("b", compute("b")) == 2
    assert memo.get("a", compute("a")) == 1  # remembered; "a" is now the most recent
    assert memo.get("c", compute("c")) == 3  # evicts "b"
    assert memo.get("a", compute("a")) == 1
    assert memo.get("b", compute("b")) == 4
    assert calls == ["a", "b", "c", "b"]


def test_a_failed_computation_is_not_remembered():
    memo: Memo[str] = Memo()

    def fail() -> str:
        raise RuntimeError("model not loaded")

    with pytest.raises(RuntimeError, match="model not loaded"):
        memo.get("q", fail)
    assert memo.get("q", lambda: "vector") == "vector"
