"""Pinned weight files: a file whose sha256 differs from the pin is refused."""

from __future__ import annotations

import dataclasses

import pytest

from papersift.models import ModelError, get_spec
from papersift.models.packages import verified


def test_weights_with_wrong_hash_are_refused():
    spec = get_spec("all-MiniLM-L6-v2")
    wrong = dataclasses.replace(spec.weights, sha256="0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        verified(wrong)


