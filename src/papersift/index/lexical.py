"""The lexical index: a tantivy index derived from the store, swapped in atomically.

Layout inside the data dir:

    lexical/CURRENT          name of the live generation (replaced atomically)
    lexical/gen-<n>/         a tantivy index + row store (rows.py) + papersift.json
                             (schema version, last seq); never written once published
    lexical/.lock            held by the one writer (build or update)

A full build writes a new generation; an update stages a new generation of hard links
to the live one's files and adds the papers whose store seq is past the index's last
seq (delete by id, re-add) in one tantivy commit. Either way the generation becomes live
by one rename of CURRENT (index/publish.py): a reader opens the old index or the new one,
never a half-written one, and a writer killed at any point leaves the live index whole.

Topics: a paper without a source area is indexed (area, subarea fields and facet key)
with its predicted topic (index/predictions.py), so filters and facets treat predictions
like labels; the row store keeps the source record. The meta records the predictions'
stamp; when it changed, an update re-adds the papers whose indexed topic is stale.

This module is the generations' lifecycle (build, update, publish, open); what a document
holds (the schema, a paper's document, its institutions) is index/documents.py.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson
import tantivy

from papersift.index.analyzers import register
from papersift.index.documents import InstitutionCodes, build_schema, paper_document
from papersift.index.facetkeys import (
    FACET_GROUPS,
    FACET_POSITION,
    FACET_SEPARATOR,
    facet_keys,
)
from papersift.index.predictions import PredictionStore, Topic, with_predicted_topic
from papersift.index.publish import (
    POINTER_FILE,
    PUBLISH_STEPS,
    fault_point,
    link_generation,
    new_staging,
    publish,
    remove_debris,
    write_atomically,
    writer_lock,
)
from papersift.index.rows import ROW_FAULT_STEPS, RowReader, RowWriter
from papersift.record import Paper
from papersift.store import Store

INDEX_DIR = "lexical"
META_FILE = "papersift.json"
# 6: facet codes in two groups (publication, topic) instead of one; 7: `code` (a code link)
# in the publication key and an exact field, `institution` fields (filter, facet counts);
# 8: rows compressed (zlib with a dictionary of the build's first records, rows.zdict);
# 9: text without PDF-extraction debris (index/debris.py: soft hyphens joined, line-end pairs added joined).
# Rows of builds since are zstd (rows.zstd-dict, index/rows.py); schema 9 generations with zlib rows
# (rows.zdict) read and update as they are, so that change needs no new schema version.
SCHEMA_VERSION = 9
WRITER_HEAP_BYTES = 256_000_000
# One indexing thread (Python feeds it on another) whose memory budget holds the whole build:
# one segment in insertion (store seq) order, so equal scores rank in that order in every
# build. The writer flushes a segment whenever its budget is full (256 MB held ~320 K papers
# of the 1 M synthetic corpus, ~0.8 KB each), and tantivy-py has no call to merge segments,
# so a full build adds HEAP_BYTES_PER_PAPER per paper to the budget (a margin for longer
# texts; a small build costs more per paper: 30 K papers overflowed 36 MB). tantivy allocates
# the budget as it fills and caps one thread just under 4 GiB (MAX_WRITER_HEAP_BYTES: 3 M
# papers by this rule, ~5 M in fact); past that a build has several segments and tied scores
# rank in segment order. An update adds a segment; tantivy's merge policy merges them.
WRITER_THREADS = 1
HEAP_BYTES_PER_PAPER = 1_200
MAX_WRITER_HEAP_BYTES = 4_000_000_000
OPEN_ATTEMPTS = 3  # a reader that lost the race against a swap (its generation removed) tries again
# tantivy's own lock files: each generation's writer and readers make their own.
TANTIVY_LOCK_FILES = (".tantivy-writer.lock", ".tantivy-meta.lock")
# Where a kill is injected by the publish-fault tests (publish.fault_point), in order.
FAULT_STEPS = ("lexical:staged", "lexical:first-added", *ROW_FAULT_STEPS, "lexical:committed",
               "lexical:meta-written", *PUBLISH_STEPS)

ProgressCallback = Callable[[int], None]


class IndexMissingError(FileNotFoundError):
    """No lexical index in this data dir yet."""


class IndexOutdatedError(IndexMissingError):
    """The lexical index was built with another schema version: `papersift index` rebuilds it."""


@dataclass(frozen=True, slots=True)
class IndexMeta:
    schema_version: int
    last_seq: int
    documents: int
    built_at: float
    updated_at: float
    topics: str = ""  # stamp of the predicted topics indexed (PredictionStore.stamp)

    @classmethod
    def read(cls, folder: Path) -> IndexMeta:
        return cls(**orjson.loads((folder / META_FILE).read_bytes()))

    def write(self, folder: Path) -> None:
        write_atomically(folder / META_FILE, orjson.dumps(asdict(self)))


def index_root(data_dir: str | Path) -> Path:
    return Path(data_dir) / INDEX_DIR


def current_generation(data_dir: str | Path) -> Path | None:
    pointer = index_root(data_dir) / POINTER_FILE
    try:
        name = pointer.read_text().strip()
    except FileNotFoundError:
        return None
    folder = index_root(data_dir) / name
    return folder if folder.is_dir() else None


@contextmanager
def _writer_lock(data_dir: str | Path) -> Iterator[None]:
    """The one writer of this data dir's lexical index (threads and processes: publish.py),
    which also removes what killed writers left behind."""
    root = index_root(data_dir)
    with writer_lock(root):
        remove_debris(root)
        yield


@dataclass(frozen=True, slots=True)
class BuildResult:
    folder: Path
    documents: int
    added: int
    seconds: float
    full: bool


def _add_papers(writer: tantivy.IndexWriter, rows: RowWriter, institutions: InstitutionCodes,
                papers: Iterable[tuple[int, Paper]], replace: bool, progress: ProgressCallback | None,
                predicted: dict[str, Topic] | None = None) -> tuple[int, int]:
    """Add papers (deleting their old version first when replacing); (count, last seq).

    Documents and facet keys carry the predicted topic of a paper without a source one;
    the row keeps the source record."""
    count, last_seq = 0, 0
    predicted = predicted or {}
    for seq, paper in papers:
        if replace:
            writer.delete_documents_by_term("id", paper.id)
        searched = with_predicted_topic(paper, predicted.get(paper.id))
        writer.add_document(paper_document(searched, *rows.add(paper, facet_keys(searched)), institutions.of(searched)))
        count, last_seq = count + 1, seq
        if count == 1:
            fault_point("lexical:first-added")
        if progress and count % 1000 == 0:
            progress(1000)
    if progress:
        progress(count % 1000)
    return count, last_seq


def writer_heap_bytes(papers: int | None) -> int:
    """The writer's memory budget for a build of `papers` papers (None: not known)."""
    if papers is None:
        return WRITER_HEAP_BYTES
    return min(MAX_WRITER_HEAP_BYTES, WRITER_HEAP_BYTES + papers * HEAP_BYTES_PER_PAPER)


_OS_ERROR = re.compile(r"\(os error (\d+)\)")
# tantivy writes these by its own atomic write (a temporary file, mode 0600, renamed): they
# would stay unreadable to the other users who may read every other file of the data dir.
TANTIVY_PRIVATE_FILES = ("meta.json", ".managed.json")


@contextmanager
def tantivy_os_errors(folder: Path) -> Iterator[None]:
    """tantivy reports a failed read or write (a full or read-only disk) as ValueError('An IO
    error occurred: ... (os error 28)'): raised again as the OSError it is, so the callers'
    fault handling (one line: disk full, read-only) covers tantivy's writes like their own."""
    try:
        yield
    except ValueError as error:
        found = _OS_ERROR.search(str(error))
        if found is None:
            raise
        code = int(found.group(1))
        raise OSError(code, os.strerror(code) if code in errno.errorcode else str(error), str(folder)) from error


def follow_umask(folder: Path, like: Path) -> None:
    """Give tantivy's privately created files the mode of `like`, a file of the same folder that
    papersift created as every other (so the process's umask decides, not tantivy)."""
    mode = like.stat().st_mode & 0o777
    for name in TANTIVY_PRIVATE_FILES:
        path = folder / name
        if path.exists() and path.stat().st_mode & 0o777 != mode:
            path.chmod(mode)


def _write_staged(index: tantivy.Index, staging: Path, papers: Iterable[tuple[int, Paper]], replace: bool,
                  progress: ProgressCallback | None, predicted: dict[str, Topic] | None,
                  expected: int | None = None) -> tuple[int, int]:
    """Add the papers to a staged generation (tantivy and the row store) and commit it there:
    (papers added, highest seq). Nothing is live until the caller publishes the staging folder."""
    register(index)
    with tantivy_os_errors(staging):
        writer = index.writer(heap_size=writer_heap_bytes(expected), num_threads=WRITER_THREADS)
        rows = RowWriter(staging, len(FACET_GROUPS))
        institutions = InstitutionCodes(staging)
        counts = _add_papers(writer, rows, institutions, papers, replace=replace, progress=progress,
                             predicted=predicted)
        rows.close()
        institutions.save()
        writer.commit()
        writer.wait_merging_threads()
    follow_umask(staging, like=institutions.path)
    fault_point("lexical:committed")
    return counts


def build(data_dir: str | Path, progress: ProgressCallback | None = None) -> BuildResult:
    """Build a fresh index of every paper in the store and swap it in."""
    with _writer_lock(data_dir):
        return _build_store(data_dir, progress)


def _build_store(data_dir: str | Path, progress: ProgressCallback | None) -> BuildResult:
    store = Store(data_dir, readonly=True)
    try:
        predicted, stamp = predicted_topics(data_dir)
        return _build_generation(data_dir, store.iter_papers(0), store.max_seq(), progress, predicted, stamp,
                                 expected=store.count())
    finally:
        store.close()


def predicted_topics(data_dir: str | Path) -> tuple[dict[str, Topic], str]:
    """The stored predictions' (area, subarea) by paper id, and their stamp."""
    with PredictionStore(data_dir, readonly=True) as predictions:
        return predictions.topics(), predictions.stamp()


def predictions_stamp(data_dir: str | Path) -> str:
    with PredictionStore(data_dir, readonly=True) as predictions:
        return predictions.stamp()


def build_from_papers(data_dir: str | Path, papers: Iterable[tuple[int, Paper]], last_seq: int = 0,
                      progress: ProgressCallback | None = None, predicted: dict[str, Topic] | None = None,
                      topics_stamp: str = "", expected: int | None = None) -> BuildResult:
    """Index `papers` ((seq, paper) pairs; `expected` of them, when known) into a new generation and swap it in.

    The store's build passes its papers; evaluation corpora that have no store (and
    must not be merged by title the way the store merges) pass theirs directly.
    """
    with _writer_lock(data_dir):
        return _build_generation(data_dir, papers, last_seq, progress, predicted, topics_stamp, expected)


def _build_generation(data_dir: str | Path, papers: Iterable[tuple[int, Paper]], last_seq: int,
                      progress: ProgressCallback | None, predicted: dict[str, Topic] | None,
                      topics_stamp: str, expected: int | None = None) -> BuildResult:
    started = time.perf_counter()
    root = index_root(data_dir)
    name, staging = new_staging(root)
    try:
        with tantivy_os_errors(staging):
            index = tantivy.Index(build_schema(), path=str(staging))
        count, _ = _write_staged(index, staging, papers, replace=False, progress=progress, predicted=predicted,
                                 expected=expected)
        now = time.time()
        IndexMeta(SCHEMA_VERSION, last_seq, count, now, now, topics_stamp).write(staging)
        fault_point("lexical:meta-written")
        folder = publish(root, staging, name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildResult(folder, count, count, time.perf_counter() - started, full=True)


def update(data_dir: str | Path, progress: ProgressCallback | None = None) -> BuildResult:
    """Bring the index up to the store: full build if missing or outdated, else add changes
    (papers changed in the store, and papers whose predicted topic changed). Predictions of
    another model change most topics: a fresh build is then faster and leaves no dead rows.

    An update is published like a build: a new generation of hard links to the live one's
    files gets the changes, then replaces it with one rename (publish.py), so a kill at any
    point leaves the live index whole and a reader never sees part of an update."""
    with _writer_lock(data_dir):
        folder = current_generation(data_dir)
        meta = _readable_meta(folder)
        if folder is None or meta is None or meta.schema_version != SCHEMA_VERSION:
            return _build_store(data_dir, progress)
        stamp = predictions_stamp(data_dir)  # read before the topics: a write in between shows next time
        if _model_of(meta.topics) != _model_of(stamp):
            return _build_store(data_dir, progress)
        return _update_generation(data_dir, folder, meta, stamp, progress)


def _readable_meta(folder: Path | None) -> IndexMeta | None:
    if folder is None:
        return None
    try:
        return IndexMeta.read(folder)
    except (OSError, ValueError, TypeError):
        return None


def _update_generation(data_dir: str | Path, folder: Path, meta: IndexMeta, stamp: str,
                       progress: ProgressCallback | None) -> BuildResult:
    started = time.perf_counter()
    root = index_root(data_dir)
    store = Store(data_dir, readonly=True)
    try:
        changed = store.iter_papers(meta.last_seq)
        first = next(changed, None)
        if first is None and stamp == meta.topics:
            return BuildResult(folder, meta.documents, 0, time.perf_counter() - started, full=False)
        predicted, _ = predicted_topics(data_dir)
        retopiced = [] if stamp == meta.topics else _stale_topics(folder, predicted)
        papers = itertools.chain(((meta.last_seq, paper) for paper in retopiced), [first] if first else [], changed)
        name, staging = new_staging(root)
        try:
            link_generation(folder, staging, skip=TANTIVY_LOCK_FILES)
            fault_point("lexical:staged")
            with tantivy_os_errors(staging):
                index = tantivy.Index.open(str(staging))
            added, last_seq = _write_staged(index, staging, papers, replace=True, progress=progress,
                                            predicted=predicted)
            with tantivy_os_errors(staging):
                index.reload()
                documents = index.searcher().num_docs
            IndexMeta(SCHEMA_VERSION, max(last_seq, meta.last_seq), documents, meta.built_at, time.time(),
                      stamp).write(staging)
            fault_point("lexical:meta-written")
            folder = publish(root, staging, name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    finally:
        store.close()
    return BuildResult(folder, documents, added, time.perf_counter() - started, full=False)


def _model_of(stamp: str) -> str:
    return stamp.partition("/")[0]


def _stale_topics(folder: Path, predicted: dict[str, Topic]) -> list[Paper]:
    """Indexed papers (their source records) whose indexed area/subarea is not their topic now."""
    reader = RowReader(folder)
    every_row = list(range(len(reader)))
    latest = dict(zip(reader.paper_ids(every_row), every_row))  # a replaced paper's last row is the live one
    group, area_at = FACET_POSITION["area"]
    subarea_at = FACET_POSITION["subarea"][1]  # same group as area
    indexed_of_code = [(parts[area_at] or None, parts[subarea_at] or None)
                       for parts in (key.split(FACET_SEPARATOR) for key in reader.keys[group])]
    codes = reader.facet_codes(list(latest.values()))[:, group].tolist()
    # Cheap first pass on ids and facet keys; source-labeled papers also land here and are
    # then kept only if their indexed topic is not their source one.
    suspects = {row: indexed_of_code[code] for (paper_id, row), code in zip(latest.items(), codes)
                if indexed_of_code[code] != predicted.get(paper_id)}
    stale = []
    for row, paper in zip(suspects, reader.papers(list(suspects))):
        searched = with_predicted_topic(paper, predicted.get(paper.id))
        if (searched.area or None, searched.subarea or None) != suspects[row]:
            stale.append(paper)
    return stale


@dataclass(frozen=True, slots=True)
class OpenedIndex:
    """A live generation opened for reading. `shadow` (kept as long as the index is used)
    is the writable folder of links tantivy opens when the generation itself is read-only."""

    index: tantivy.Index
    rows: RowReader
    folder: Path
    shadow: tempfile.TemporaryDirectory | None = None


def open_index(data_dir: str | Path) -> OpenedIndex:
    """Open the live generation for reading. Writes nothing to the data dir, so a read-only
    one serves; retries when a writer swapped the generation away while it was opened."""
    for _ in range(OPEN_ATTEMPTS):
        folder = current_generation(data_dir)
        if folder is None:
            raise IndexMissingError(f"no lexical index in {data_dir}; run 'papersift index --data-dir {data_dir}'")
        try:
            built_with = IndexMeta.read(folder).schema_version
            if built_with != SCHEMA_VERSION:
                raise IndexOutdatedError(
                    f"the lexical index in {data_dir} has schema version {built_with}, this papersift reads "
                    f"{SCHEMA_VERSION}; run 'papersift index --rebuild --data-dir {data_dir}' to rebuild it")
            opened = _open_generation(folder)
        except IndexMissingError:
            raise
        except (FileNotFoundError, ValueError):
            if current_generation(data_dir) == folder:
                raise
            continue  # swapped out (and removed) while opening: open the new one
        return opened
    raise IndexMissingError(f"the lexical index in {data_dir} kept changing while it was opened; try again")


def _open_generation(folder: Path) -> OpenedIndex:
    """tantivy takes a lock file in the folder it opens, even to read. A folder this process
    may write is opened as it is; a read-only one through a temporary folder of symlinks to
    its files, where tantivy makes its lock files instead."""
    if os.access(folder, os.W_OK):
        index = tantivy.Index.open(str(folder))
        shadow = None
    else:
        shadow = tempfile.TemporaryDirectory(prefix="papersift-readonly-index-")
        for path in folder.iterdir():
            if path.name not in TANTIVY_LOCK_FILES:
                os.symlink(path.resolve(), Path(shadow.name) / path.name)
        index = tantivy.Index.open(shadow.name)
    register(index)
    return OpenedIndex(index, RowReader(folder), folder, shadow)


def index_size_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
