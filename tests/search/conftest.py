"""An indexed copy of the sample data dir, shared by the search tests (read-only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from papersift.index import lexical, termlexicon
from papersift.store import DB_FILE


def indexed_copy(source: Path, target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob(f"{DB_FILE}*"):
        shutil.copy2(path, target / path.name)
    lexical.build(target)
    termlexicon.build_for_store(target)
    return target


@pytest.fixture(scope="session")
def indexed_dir(sample_data_dir, tmp_path_factory) -> Path:
    return indexed_copy(sample_data_dir, tmp_path_factory.mktemp("indexed"))


@pytest.fixture(scope="session")
def service(indexed_dir):
    from papersift.search.service import SearchService

    return SearchService(indexed_dir)
