"""The model registry: names, specs."""

from __future__ import annotations

import pytest

from papersift.models import ModelError, get_spec


def test_an_unknown_model_names_the_known_ones():
    with pytest.raises(ModelError, match="unknown model 'bge-m3'; known: multilingual-e5-small, all-MiniLM-L6-v2"):
        get_spec("bge-m3")
