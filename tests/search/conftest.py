"""An indexed copy of the sample data dir, shared by the search tests (read-only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from papersift.index import lexical, termlexicon
from papersift.store import DB_FILE
from served_papers import copy_data_dir


def indexed_copy(source: Path, target: Path) -> Path:
    """A writable copy of the data dir `source` (tests must not write to it) with its keyword
    index and term lexicon built. The first copy of a source is built and kept as a template
    beside it (named by the store's size and time, marked complete last); later ones copy it
    (the same files a build would make)."""
    stat = (source / DB_FILE).stat()
    template = source.parent / f".{source.name}-indexed-{stat.st_size}-{stat.st_mtime_ns}"
    if not (template / ".complete").exists():
        shutil.rmtree(template, ignore_errors=True)
        template.mkdir()
        for path in source.glob(f"{DB_FILE}*"):
            shutil.copy2(path, template / path.name)
        lexical.build(template)
        termlexicon.build_for_store(template)
        (template / ".complete").touch()
    return copy_data_dir(template, target)


@pytest.fixture(scope="session")
def indexed_dir(sample_data_dir, tmp_path_factory) -> Path:
    return indexed_copy(sample_data_dir, tmp_path_factory.mktemp("indexed"))


@pytest.fixture(scope="session")
def service(indexed_dir):
    from papersift.search.service import SearchService

    return SearchService(indexed_dir)
