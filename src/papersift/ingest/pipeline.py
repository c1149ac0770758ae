"""An ingest run: read every file, validate every record, upsert good ones in batches.

Batches are committed one transaction at a time, and every upsert is idempotent, so a
run killed at any point and run again leaves each record in the store exactly once. A
killed run's row still says 'running', but its liveness lock (papersift.run_locks) is gone:
`stats` reports it as interrupted, and the next run stores that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from papersift.ingest.base import SourceError, SourceRecord
from papersift.ingest.formats import reader_for
from papersift.pausepoints import pause_point
from papersift.record import Paper, RecordError, paper_from_dict
from papersift.store import Store, StoreError, UpsertCounts, fold_same_id

BATCH_SIZE = 2000


@dataclass(frozen=True, slots=True)
class IngestError:
    path: str
    location: str
    record_id: str | None
    problem: str

    def __str__(self) -> str:
        record = f" (id {self.record_id})" if self.record_id else ""
        return f"{self.path}:{self.location}{record}: {self.problem}"


class StrictModeStop(Exception):
    """--strict: the first rejected record ends the run."""

    def __init__(self, error: IngestError):
        super().__init__(str(error))
        self.error = error


@dataclass
class IngestSummary:
    run_id: int
    files: int = 0
    read: int = 0
    skipped: int = 0  # readable records that are not papers (rejected submissions)
    counts: UpsertCounts = field(default_factory=UpsertCounts)
    errors: list[IngestError] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        return len(self.errors)

    def to_dict(self) -> dict:
        return {
            "run_id": self.run_id,
            "files": self.files,
            "read": self.read,
            "skipped": self.skipped,
            "added": self.counts.added,
            "updated": self.counts.updated,
            "merged": self.counts.merged,
            "unchanged": self.counts.unchanged,
            "rejected": self.rejected,
            "errors": [str(error) for error in self.errors[:1000]],
        }


def validate(record: SourceRecord) -> Paper | IngestError:
    if record.error:
        return IngestError(record.path, record.location, None, record.error)
    try:
        source = record.data.get("source") if isinstance(record.data, dict) else None
        return paper_from_dict(record.data, source=source or record.path)
    except RecordError as exc:
        record_id = record.data.get("id") if isinstance(record.data, dict) else None
        return IngestError(record.path, record.location, str(record_id)[:200] if record_id else None, str(exc))


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    format_name: str | None = None,
    strict: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> IngestSummary:
    """Ingest files into the store; the summary lists every rejected record.

    A store fault (StoreError: full disk, read-only directory) ends the run; the batches
    committed before it stay, the failing one leaves nothing.
    """
    path_list = [Path(path) for path in paths]
    summary = IngestSummary(run_id=store.begin_run([str(path) for path in path_list]))
    batch = _RunBatch(store)
    try:
        for path in path_list:
            _ingest_file(store, path, format_name, strict, summary, on_progress, batch)
            summary.files += 1
    except BaseException as exc:
        status = {StrictModeStop: "stopped", KeyboardInterrupt: "interrupted"}.get(type(exc), "failed")
        _close_run(store, summary, status, failing=True)
        raise
    _close_run(store, summary, "ok" if not summary.errors else "rejected", failing=False)
    return summary


def _close_run(store: Store, summary: IngestSummary, status: str, failing: bool) -> None:
    """Store the run's errors and final status. While another error is on its way out (a full
    disk most often), a failure here must not replace it: the run then stays 'running' with
    no live process, which reads as 'interrupted'."""
    try:
        store.record_errors(summary.run_id, [(e.path, e.location, e.record_id, e.problem) for e in summary.errors])
        store.finish_run(summary.run_id, status, summary.to_dict())
    except StoreError:
        if not failing:
            raise


class _RunBatch:
    """Papers waiting for the next upsert.

    Within one run the first record with an id wins and later records with that id only
    fill its empty fields (`fold_same_id`, the rule a POST of several records follows too);
    a later run's record replaces the stored one (an update). So a re-run of the same
    files changes nothing. Which ids this run has stored is asked of the store at each
    flush (papers written past the seq the run started at), not kept in memory: a set of
    every id grew with the corpus (~0.1 KB a paper).
    """

    def __init__(self, store: Store):
        self.store = store
        self.started_at_seq = store.max_seq()
        self.pending: dict[str, Paper] = {}
        self.submissions: list[dict] = []  # not-accepted submissions, stored apart at each flush

    def add(self, paper: Paper) -> bool:
        """Queue a paper; False when it repeats a queued one and adds nothing."""
        queued = self.pending.get(paper.id)
        if queued is not None:
            paper = fold_same_id(queued, paper)
            if paper == queued:
                return False
        self.pending[paper.id] = paper
        return True

    def flush(self) -> UpsertCounts:
        submissions, self.submissions = self.submissions, []
        self.store.upsert_submissions(submissions)
        pending, self.pending = self.pending, {}
        counts = UpsertCounts()
        for record_id, stored in self.store.written_since(list(pending), self.started_at_seq).items():
            merged = fold_same_id(stored, pending[record_id])
            if merged == stored:
                del pending[record_id]
                counts.unchanged += 1
            else:
                pending[record_id] = merged
        if pending:
            counts += self.store.upsert(list(pending.values()))
        return counts


def _ingest_file(store, path, format_name, strict, summary, on_progress, batch: _RunBatch) -> None:
    records_seen = 0
    try:
        reader = reader_for(path, format_name)
        for record in reader(path):
            records_seen += 1
            if record.skipped:
                summary.skipped += 1
                if record.submission:
                    batch.submissions.append(record.submission)
                continue
            result = validate(record)
            summary.read += 1
            if isinstance(result, IngestError):
                _reject(summary, result, strict)
                continue
            if not batch.add(result):
                summary.counts.unchanged += 1
            if len(batch.pending) >= BATCH_SIZE:
                _flush(batch, summary, on_progress)
        if records_seen == 0:
            raise SourceError("empty file: no records")
    except (SourceError, OSError) as exc:
        problem = str(exc) if isinstance(exc, SourceError) else (exc.strerror or str(exc))
        _reject(summary, IngestError(str(path), "file", None, problem), strict, cause=exc)
    finally:
        _flush(batch, summary, on_progress)


def _reject(summary: IngestSummary, error: IngestError, strict: bool, cause: Exception | None = None) -> None:
    summary.errors.append(error)
    if strict:
        raise StrictModeStop(error) from cause


def _flush(batch: _RunBatch, summary: IngestSummary, on_progress) -> None:
    count = len(batch.pending)
    if count or batch.submissions:
        summary.counts += batch.flush()
        pause_point("ingest-batch-committed")
        _report(on_progress, count)


def _report(on_progress, count: int) -> None:
    if on_progress:
        on_progress(count)
