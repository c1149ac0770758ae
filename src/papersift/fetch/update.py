"""`papersift update`: run the configured fetch jobs, ingest what they bring, bring the keyword
index up to the store and embed the new papers, in one locked, resumable run.

The jobs are read from DATA_DIR/update.toml (or --config):

    [[openreview]]                 # every accepted paper of a venue (the API has no "since")
    venue = "ICLR.cc/2025/Conference"

    [[arxiv]]                      # OAI-PMH ListRecords of a set, from the last harvest on
    set = "cs"
    from = "2026-11-01"            # the first harvest's `from` (default: 7 days before the run)

Both take `base_url` (a mirror, or the tests' fake service) and `delay` (seconds between
requests; default the service's limit).

Resuming: DATA_DIR/fetch/update.json records the steps the current run finished (`<job>:fetch`,
`<job>:ingest`, `index`, `embed`) and, per arXiv job, the day its last finished run started,
the next harvest's `from` (OAI-PMH days are inclusive: the records of that day come again and
ingest finds them unchanged). A run that dies resumes at its first unfinished step: a fetch at
its saved cursor (fetch/state.py), an ingest from the pages already saved (ingest skips the
papers it already has), the index with an incremental update. A second run on the same data dir
while one holds DATA_DIR/update.lock stops at once (UpdateRunning).

Last, when SMTP is configured (PAPERSIFT_SMTP_HOST, follow/mail.py), the `digest` step sends
the digests of papers new since the last one (follow/digest.py). It keeps its own outbox, so it
is not a resumable step: a failed delivery is reported in the step's counts and retried by the
next `papersift update` or `papersift digest`; it never fails the update.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import orjson

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

from papersift import run_locks
from papersift.fetch import arxiv as arxiv_api
from papersift.fetch import openreview as openreview_api
from papersift.fetch.http import HttpClient, RetryPolicy
from papersift.fetch.pager import Pager, run_pages
from papersift.fetch.state import job_dir, load_state, write_atomic
from papersift.pausepoints import pause_point

CONFIG_FILE = "update.toml"
STATE_FILE = "update.json"  # under DATA_DIR/fetch
LOCK_FILE = "update.lock"
FIRST_HARVEST_DAYS = 7
Log = Callable[[str], None]


class UpdateError(ValueError):
    """A configuration the run cannot follow (the message names the job and the problem)."""


class UpdateRunning(RuntimeError):
    """Another `papersift update` holds this data dir's lock."""


@dataclass(frozen=True)
class FetchJob:
    kind: str  # 'openreview' | 'arxiv'
    target: str  # the venue id or the OAI-PMH set
    base_url: str
    delay: float
    first_from: str | None = None  # arXiv: the first harvest's `from`

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.target}"

    def pager(self, harvest_from: str | None) -> tuple[Pager, str, str, str]:
        """(pager, fetch source, job key, ingest format)."""
        if self.kind == "openreview":
            return openreview_api.OpenReviewPager(self.target), "openreview", self.target, "openreview"
        return (arxiv_api.ArxivOaiPager(self.target, harvest_from), "arxiv-oai", f"{self.target}|{harvest_from}|None",
                "oai-pmh")


def read_jobs(path: Path) -> list[FetchJob]:
    """The jobs of an update.toml; a bad entry is a one-line UpdateError naming it."""
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UpdateError(f"no fetch jobs: {path} does not exist (see docs/feeds.md, 'papersift update')") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UpdateError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(config) - {"openreview", "arxiv"}
    if unknown:
        raise UpdateError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}; use [[openreview]] or [[arxiv]]")
    jobs = []
    for kind, key, default_url, default_delay in (("openreview", "venue", openreview_api.BASE_URL, openreview_api.MIN_INTERVAL),
                                                  ("arxiv", "set", arxiv_api.OAI_BASE_URL, arxiv_api.MIN_INTERVAL)):
        for number, entry in enumerate(config.get(kind, []), 1):
            where = f"{path}: [[{kind}]] #{number}"
            if not isinstance(entry, dict) or not isinstance(entry.get(key), str) or not entry[key].strip():
                raise UpdateError(f"{where}: needs {key} = \"...\"")
            allowed = {key, "base_url", "delay"} | ({"from"} if kind == "arxiv" else set())
            if extra := set(entry) - allowed:
                raise UpdateError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
            first_from = entry.get("from")
            if first_from is not None:
                first_from = _iso_day(first_from, where)
            delay = entry.get("delay", default_delay)
            if not isinstance(delay, (int, float)) or delay < 0:
                raise UpdateError(f"{where}: delay must be a number of seconds >= 0")
            jobs.append(FetchJob(kind, entry[key].strip(), str(entry.get("base_url", default_url)), float(delay), first_from))
    names = [job.name for job in jobs]
    if len(set(names)) != len(names):
        raise UpdateError(f"{path}: a job is listed twice")
    return jobs


def _iso_day(value, where: str) -> str:
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise UpdateError(f"{where}: from must be a day, YYYY-MM-DD (got {value!r})") from None


@dataclass
class UpdateState:
    harvests: dict[str, str] = field(default_factory=dict)  # arXiv job -> day its last finished run started
    run: dict | None = None  # {"started": day, "done": [step, ...]} while a run is unfinished

    @classmethod
    def load(cls, data_dir: Path) -> UpdateState:
        path = Path(data_dir) / "fetch" / STATE_FILE
        return cls(**orjson.loads(path.read_bytes())) if path.exists() else cls()

    def save(self, data_dir: Path) -> None:
        write_atomic(Path(data_dir) / "fetch" / STATE_FILE,
                     orjson.dumps({"harvests": self.harvests, "run": self.run}, option=orjson.OPT_INDENT_2))


@dataclass
class StepReport:
    step: str
    counts: dict
    skipped: str | None = None  # why the step did nothing ("done before", "model not built", ...)


@dataclass
class UpdateReport:
    resumed: bool
    steps: list[StepReport] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"resumed": self.resumed,
                "steps": [{"step": step.step, **step.counts, **({"skipped": step.skipped} if step.skipped else {})}
                          for step in self.steps]}


def run_update(data_dir: Path, jobs: list[FetchJob], *, log: Log = lambda _: None, today: date | None = None,
               retry: RetryPolicy | None = None, embed: Callable[[Path], dict | str] | None = None,
               env: dict | None = None) -> UpdateReport:
    """Fetch, ingest, index, embed and send digests; see the module docstring. `embed(data_dir)`
    returns the embedding counts, or the reason it did nothing (default: embed_new_papers);
    `env` holds the SMTP settings (default: the process environment)."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    with run_locks.held_or_refused(data_dir / LOCK_FILE, UpdateRunning(f"another 'papersift update' is running on {data_dir}")):
        report = _run_locked(data_dir, jobs, log, today or datetime.now(timezone.utc).date(), retry or RetryPolicy(),
                             embed or embed_new_papers)
        digest = _send_digests(data_dir, os.environ if env is None else env, log)
        if digest is not None:
            report.steps.append(digest)
            log(f"digest: {digest.skipped or ', '.join(f'{name} {value}' for name, value in digest.counts.items())}")
        return report


def _run_locked(data_dir: Path, jobs: list[FetchJob], log: Log, today: date, retry: RetryPolicy,
                embed: Callable[[Path], dict | str]) -> UpdateReport:
    state = UpdateState.load(data_dir)
    report = UpdateReport(resumed=state.run is not None)
    if state.run is None:
        state.run = {"started": today.isoformat(), "done": []}
        state.save(data_dir)
    else:
        log(f"resuming the update started {state.run['started']} (done: {', '.join(state.run['done']) or 'nothing'})")
    done: list[str] = state.run["done"]

    def finish(step: StepReport) -> None:
        report.steps.append(step)
        counts = ", ".join(f"{name} {value}" for name, value in step.counts.items())
        log(f"{step.step}: {step.skipped or counts}")
        done.append(step.step)
        state.save(data_dir)
        pause_point("update-step-done")

    for job in jobs:
        harvest_from = state.harvests.get(job.name) or job.first_from or (today - timedelta(days=FIRST_HARVEST_DAYS)).isoformat()
        pager, source, key, format_name = job.pager(harvest_from if job.kind == "arxiv" else None)
        directory = job_dir(data_dir, source, key)
        if f"{job.name}:fetch" in done:
            report.steps.append(StepReport(f"{job.name}:fetch", {}, "done before"))
        else:
            finish(_fetch(job, pager, directory, retry, harvest_from))
        if f"{job.name}:ingest" in done:
            report.steps.append(StepReport(f"{job.name}:ingest", {}, "done before"))
        else:
            finish(_ingest(data_dir, job, directory, format_name))
    for step_name, step in (("index", _index), ("embed", lambda d: _embed(d, embed))):
        if step_name in done:
            report.steps.append(StepReport(step_name, {}, "done before"))
        else:
            finish(step(data_dir))
    for job in jobs:
        if job.kind == "arxiv":
            state.harvests[job.name] = state.run["started"]
    state.run = None
    state.save(data_dir)
    return report


def _fetch(job: FetchJob, pager: Pager, directory: Path, retry: RetryPolicy, harvest_from: str) -> StepReport:
    with HttpClient(job.base_url, min_interval=job.delay, retry=retry) as client:
        result = run_pages(client, pager, directory)
    counts: dict = {"records": result.records, "pages": len(result.pages), "requests": result.requests}
    if job.kind == "arxiv":
        counts["from"] = harvest_from
    if result.resumed:
        counts["resumed"] = True
    return StepReport(f"{job.name}:fetch", counts)


def _ingest(data_dir: Path, job: FetchJob, directory: Path, format_name: str) -> StepReport:
    from papersift.ingest.pipeline import ingest_paths
    from papersift.store import Store

    saved = load_state(directory)
    pages = [directory / name for name in saved.pages] if saved else []
    if not pages:
        return StepReport(f"{job.name}:ingest", {"pages": 0, "added": 0, "updated": 0, "unchanged": 0, "rejected": 0})
    store = Store(data_dir)
    try:
        summary = ingest_paths(store, pages, format_name).to_dict()
    finally:
        store.close()
    return StepReport(f"{job.name}:ingest", {"pages": len(pages), **{name: summary[name] for name in
                                                                     ("added", "updated", "unchanged", "skipped", "rejected")}})


def _index(data_dir: Path) -> StepReport:
    """What `papersift index` does without --rebuild: the keyword index, the Chinese term
    lexicon and author identities follow the store."""
    from papersift.index import lexical, termlexicon
    from papersift.people.identity import build, is_stale
    from papersift.store import Store

    result = lexical.update(data_dir)
    lexicon = termlexicon.build_for_store(data_dir)
    store = Store(data_dir)
    try:
        identities = build(store) if is_stale(store) else None
    finally:
        store.close()
    return StepReport("index", {"documents": result.documents, "indexed": result.added, "full_build": result.full,
                                "term_lexicon_rebuilt": lexicon is not None, "authors_rebuilt": identities is not None})


def _send_digests(data_dir: Path, env, log: Log) -> StepReport | None:
    """The digest step when SMTP is configured (None when it is not: update sends no files)."""
    from papersift.follow.digest import DigestRunning, run_digests
    from papersift.follow.mail import smtp_config
    from papersift.follow.saved import FollowError

    try:
        if smtp_config(env) is None:
            return None
        run = run_digests(data_dir, env=env)  # the local user and every account, each their own
    except (DigestRunning, FollowError) as problem:  # another digest running, a bad SMTP setting
        return StepReport("digest", {}, str(problem))
    deliveries = [report.delivery for report in run.reports.values()]
    counts: dict = {"papers": run.papers, "delivered": sum(len(delivery.delivered) for delivery in deliveries),
                    "waiting": sum(len(delivery.waiting) for delivery in deliveries)}
    errors = [(f"{user}: " if len(run.reports) > 1 else "") + report.delivery.error
              for user, report in run.reports.items() if report.delivery.error]
    if errors:
        counts["error"] = "; ".join(errors)
    if run.no_address:  # accounts with no e-mail address: their digests wait until they set one
        counts["no_address"] = len(run.no_address)
    return StepReport("digest", counts)


def _embed(data_dir: Path, embed: Callable[[Path], dict | str]) -> StepReport:
    outcome = embed(data_dir)
    if isinstance(outcome, str):
        return StepReport("embed", {}, outcome)
    return StepReport("embed", outcome)


def embed_new_papers(data_dir: Path) -> dict | str:
    """Embed the papers the vector cache lacks with the default model; a reason string when the
    semantic extra or the built model is missing (keyword search still sees every new paper)."""
    from papersift import extras, models

    if not extras.available("semantic"):
        return "semantic extra not installed"
    if not models.is_built(models.MODELS[models.DEFAULT_MODEL]):
        return f"model {models.DEFAULT_MODEL} not built ('papersift models build')"
    from papersift.index.embeddings import Encoder, embed_store

    summary = embed_store(data_dir, Encoder(models.DEFAULT_MODEL))
    return {"papers": summary.papers, "embedded": summary.embedded, "cached": summary.cached,
            "covered": summary.covered}
