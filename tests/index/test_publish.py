"""The publish helpers: hard links (or copies where there are none), and what counts as debris."""

from __future__ import annotations

import errno
import os

from papersift.index import lexical, publish
from papersift.record import paper_from_dict
from papersift.store import Store


def test_an_update_without_hard_links_copies_and_leaves_the_live_files_alone(tmp_path, sample_records, monkeypatch):
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    store.upsert(paper_from_dict(record) for record in sample_records[:50])
    live = lexical.build(data_dir).folder
    sizes = {path.name: path.stat().st_size for path in live.iterdir()}

    def no_links(source, target):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(publish.os, "link", no_links)
    store.upsert([paper_from_dict(sample_records[50])])
    old_rows = os.open(live / "rows.bin", os.O_RDONLY)  # the replaced generation, as a reader holds it
    try:
        result = lexical.update(data_dir)
        assert (result.added, result.documents) == (1, 51)
        assert os.fstat(old_rows).st_size == sizes["rows.bin"]  # a copy was appended to, not the live file
    finally:
        os.close(old_rows)


def test_debris_is_only_what_writers_leave(tmp_path):
    root = tmp_path / "lexical"
    for name in ("gen-1", "gen-2", ".gen-3.building", "notes"):
        (root / name).mkdir(parents=True)
    for name in (".CURRENT.77.tmp", "README", ".lock"):
        (root / name).write_text("x")
    (root / "CURRENT").write_text("gen-2")
    assert sorted(publish.remove_debris(root)) == [".CURRENT.77.tmp", ".gen-3.building", "gen-1"]
    assert sorted(path.name for path in root.iterdir()) == [".lock", "CURRENT", "README", "gen-2", "notes"]
