"""Crash safety of index publishing: a writer killed (SIGKILL) at every publish step.

Each case runs the write in a subprocess that kills itself at one step, either by name
(PAPERSIFT_FAULT_AT, publish.fault_point) or at its k-th os.replace/os.rename, which needs
no hook in the code under test. Then: (a) the live index still opens and every document's
row, id and facet codes belong to one paper of the store, exactly the content of the last
completed publish; (b) the next plain update brings it to exactly the store's content and
removes what the killed writer left.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from tests.index.index_checks import live_content

import papersift
from papersift.index import lexical, vectors
from papersift.index.publish import FAULT_ENV
from papersift.record import paper_from_dict
from papersift.search.query import parse_query
from papersift.search.tantivy_backend import TantivyBackend
from papersift.store import Store

SOURCE_ROOT = str(Path(papersift.__file__).resolve().parents[1])
KILLED = -signal.SIGKILL
# The subprocess: optionally kill at the k-th os.replace / os.rename, then run one write.
HARNESS = """
import os, signal, sys
k = int(os.environ.get("KILL_AT_RENAME", "0"))
if k:
    calls = [0]
    def killing(real):
        def call(*args, **kwargs):
            calls[0] += 1
            if calls[0] == k:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return call
    os.replace, os.rename = killing(os.replace), killing(os.rename)
action, data_dir = sys.argv[1], sys.argv[2]
if action in ("update", "build"):
    from papersift.index import lexical
    getattr(lexical, action)(data_dir)
else:
    import numpy as np
    from papersift.index import vectors
    count = int(action.split(":")[1])
    matrix = np.random.default_rng(count).standard_normal((count, 8)).astype(np.float32)
    vectors.write_index(data_dir, "m", [f"p{i}" for i in range(count)], matrix, count, count)
"""


def run_killed(action: str, data_dir: Path, step: str | None = None, rename: int = 0) -> int:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])))
    env.pop(FAULT_ENV, None)
    if step:
        env[FAULT_ENV] = step
    if rename:
        env["KILL_AT_RENAME"] = str(rename)
    done = subprocess.run([sys.executable, "-c", HARNESS, action, str(data_dir)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode in (0, KILLED), done.stderr
    return done.returncode


def store_content(data_dir: Path) -> dict:
    store = Store(data_dir, readonly=True)
    try:
        return {paper.id: paper for _, paper in store.iter_papers(0)}
    finally:
        store.close()


def index_content(data_dir: Path) -> dict:
    opened = lexical.open_index(data_dir)
    return live_content(opened.index, opened.index.searcher(), opened.rows)


def debris(root: Path) -> list[str]:
    live = (root / "CURRENT").read_text().strip()
    return sorted(path.name for path in root.iterdir() if path.name not in (live, "CURRENT", ".lock"))


@pytest.fixture(scope="module")
def template(tmp_path_factory, sample_records) -> tuple[Path, dict, dict]:
    """A data dir indexed at 200 papers, then changed in the store: 30 added, 10 retitled.
    Returns it with the indexed content and the store's content."""
    data_dir = tmp_path_factory.mktemp("faults") / "data"
    store = Store(data_dir)
    store.upsert(paper_from_dict(record) for record in sample_records[:200])
    lexical.build(data_dir)
    indexed = store_content(data_dir)
    changed = [replace(paper, title=f"Qwxzv {paper.title}") for paper in list(indexed.values())[:10]]
    store.upsert(changed + [paper_from_dict(record) for record in sample_records[200:230]])
    store.close()
    return data_dir, indexed, store_content(data_dir)


def copy_of(template_dir: Path, tmp_path: Path) -> Path:
    data_dir = tmp_path / "data"
    shutil.copytree(template_dir, data_dir)
    return data_dir


def check_recovery(data_dir: Path, wanted: dict) -> None:
    backend = TantivyBackend(data_dir)  # the serving side opens it and searches with facets
    page = backend.search(parse_query("learning"), limit=50, with_papers=True)
    assert page.total > 0 and page.facets
    result = lexical.update(data_dir)
    assert index_content(data_dir) == wanted
    assert debris(lexical.index_root(data_dir)) == []
    backend.refresh(force=True)
    changed = backend.search(parse_query("qwxzv"), limit=50, with_facets=False).paper_ids
    assert sorted(changed) == sorted(i for i, paper in wanted.items() if paper.title.startswith("Qwxzv"))
    assert result.documents == len(wanted)


def test_the_steps_are_named_once_each():
    assert len(set(lexical.FAULT_STEPS)) == len(lexical.FAULT_STEPS)
    assert len(set(vectors.FAULT_STEPS)) == len(vectors.FAULT_STEPS)


@pytest.mark.drill
@pytest.mark.parametrize("step", lexical.FAULT_STEPS)
def test_update_killed_at_each_step_leaves_a_whole_index(template, tmp_path, step):
    template_dir, indexed, stored = template
    data_dir = copy_of(template_dir, tmp_path)
    assert run_killed("update", data_dir, step=step) == KILLED  # the step was reached
    published = step == "publish:pointer-replaced"
    assert index_content(data_dir) == (stored if published else indexed)
    check_recovery(data_dir, stored)


@pytest.mark.drill
@pytest.mark.parametrize("step", [step for step in lexical.FAULT_STEPS if step != "lexical:staged"])
def test_build_killed_at_each_step_leaves_a_whole_index(template, tmp_path, step):
    template_dir, indexed, stored = template
    data_dir = copy_of(template_dir, tmp_path)
    assert run_killed("build", data_dir, step=step) == KILLED
    published = step == "publish:pointer-replaced"
    assert index_content(data_dir) == (stored if published else indexed)
    check_recovery(data_dir, stored)


@pytest.mark.drill
@pytest.mark.parametrize("action", ["update", "build"])
def test_killed_at_every_rename_the_index_stays_whole(template, tmp_path, action):
    """Needs no hook: kills at the k-th rename for k = 1, 2, ... until the write completes.
    (Before publish-by-generation, an update killed between the row store's renames left
    files of different lengths in the live index.)"""
    template_dir, indexed, stored = template
    for k in range(1, 30):
        data_dir = copy_of(template_dir, tmp_path / str(k))
        code = run_killed(action, data_dir, rename=k)
        assert index_content(data_dir) in (indexed, stored), f"killed at rename {k}"
        check_recovery(data_dir, stored)
        if code == 0:
            break
    else:
        pytest.fail("the write never completed")
    assert k > 3  # several renames were killed


@pytest.mark.drill
def test_a_killed_build_leaves_debris_that_the_next_update_removes(template, tmp_path):
    template_dir, _, _ = template
    data_dir = copy_of(template_dir, tmp_path)
    root = lexical.index_root(data_dir)
    assert run_killed("build", data_dir, rename=1) == KILLED  # mid-way: rows written, not yet published
    assert [name for name in debris(root) if name.endswith(".building")]
    lexical.update(data_dir)
    assert debris(root) == []


def vector_content(data_dir: Path) -> tuple[list[str], np.ndarray]:
    index = vectors.VectorIndex.open(data_dir, "m")
    assert len(index.paper_ids) == len(index.vectors) == index.meta.rows
    return index.paper_ids, np.asarray(index.vectors)


@pytest.mark.drill
@pytest.mark.parametrize("step", vectors.FAULT_STEPS)
def test_vectors_killed_at_each_step_leave_a_whole_index(tmp_path, step):
    data_dir = tmp_path / "data"
    assert run_killed("vectors:50", data_dir) == 0
    before = vector_content(data_dir)
    assert run_killed("vectors:80", data_dir, step=step) == KILLED
    ids, matrix = vector_content(data_dir)
    after = ([f"p{i}" for i in range(80)], np.random.default_rng(80).standard_normal((80, 8)).astype(np.float32))
    expected = after if step == "publish:pointer-replaced" else before  # the old index, or the new one whole
    assert ids == expected[0] and np.array_equal(matrix, expected[1])
    assert run_killed("vectors:80", data_dir) == 0  # the next plain write
    ids, matrix = vector_content(data_dir)
    assert ids == after[0] and np.array_equal(matrix, after[1])
    assert debris(vectors.model_root(data_dir, "m")) == []
