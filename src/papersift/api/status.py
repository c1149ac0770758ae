"""Where a data dir stands, for its operator (the /status page): the keyword index, the papers,
each vector index's coverage, quickstart's background work, the topic predictions and the last
ingest run. Everything is read from files the commands write (metadata, small SQL counts, the
end of embed.log); nothing is computed or written here."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import orjson
from fastapi import Request

from papersift.background import LOG_FILE, read_status
from papersift.index import lexical, vectors
from papersift.index.predictions import PredictionStore
from papersift.search.topic_coverage import TopicCoverage, read_coverage
from papersift.store import DB_FILE, Store

LOG_TAIL_BYTES = 4096
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def from_this_machine(request: Request) -> bool:
    """The request comes from the server's own machine and names it so: a loopback client address
    and a loopback Host. A reverse proxy on the same machine forwards the public name in Host (its
    requests come from 127.0.0.1 too), so pages reached through it never count as local."""
    try:
        loopback = request.client is not None and ipaddress.ip_address(request.client.host).is_loopback
    except ValueError:  # not an address (a test client's made-up name)
        loopback = False
    return loopback and (request.url.hostname or "") in LOOPBACK_NAMES


def data_dir_status(data_dir: str | os.PathLike) -> dict:
    data_dir = Path(data_dir)
    papers, last_ingest = _from_store(data_dir)
    return {"index": _keyword_index(data_dir), "papers": papers, "vectors": _vectors(data_dir),
            "background": _background(data_dir), "topics": _topics(data_dir), "last_ingest": last_ingest}


def _keyword_index(data_dir: Path) -> dict | None:
    folder = lexical.current_generation(data_dir)
    if folder is None:
        return None
    try:
        meta = lexical.IndexMeta.read(folder)
    except (OSError, ValueError, TypeError):
        return {"generation": folder.name}
    return {"generation": folder.name, "documents": meta.documents, "built_at": meta.built_at,
            "updated_at": meta.updated_at, "schema_version": meta.schema_version}


def _from_store(data_dir: Path) -> tuple[dict | None, dict | None]:
    """(the papers' counts, the last ingest run) from one read-only look at the store."""
    if not (data_dir / DB_FILE).exists():
        return None, None
    store = Store(data_dir, readonly=True)
    try:
        total = store.count()
        with_abstract = store.read("SELECT COUNT(*) AS n FROM papers WHERE abstract IS NOT NULL")[0]["n"]
        runs = store.runs()
        last = runs[-1] if runs else None
        summary = store.read("SELECT summary FROM ingest_runs WHERE run_id=?", (last["run_id"],)) if last else []
    finally:
        store.close()
    papers = {"total": total, "with_abstract": with_abstract, "title_only": total - with_abstract}
    return papers, (_ingest_run(last, summary, len(runs)) if last else None)


def _vectors(data_dir: Path) -> list[dict]:
    root = data_dir / vectors.VECTORS_DIR
    found = []
    for model_dir in sorted(root.iterdir()) if root.is_dir() else []:
        if "@" in model_dir.name:  # not papers' vectors (the Chinese terms' phrase vectors)
            continue
        folder = vectors.current_generation(data_dir, model_dir.name)
        meta = vectors.read_meta(folder) if folder is not None else None
        if meta is not None:
            papers = meta.papers if meta.papers >= 0 else meta.rows
            found.append({"model": meta.model, "papers": papers, "of": meta.papers_total,
                          "coverage": meta.coverage, "written_at": meta.written_at})
    return found


def _background(data_dir: Path) -> dict | None:
    status = read_status(data_dir)
    if status is None:
        return None
    stages = [{"name": stage["name"], "state": status.state_of(stage["name"]), "started_at": stage["started_at"],
               "ended_at": stage["ended_at"]} for stage in status.stages]
    return {"alive": status.alive, "running": (status.running or {}).get("name"), "stages": stages,
            "last_line": _last_log_line(data_dir / LOG_FILE)}


def _last_log_line(path: Path) -> str | None:
    """The last line of embed.log (a stage's start or end, or a progress line every 30 s)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
            lines = [line.strip() for line in handle.read().decode("utf-8", "replace").replace("\r", "\n").split("\n")]
    except OSError:
        return None
    lines = [line for line in lines if line]
    return lines[-1][:300] if lines else None


def _topics(data_dir: Path) -> dict:
    coverage: TopicCoverage = read_coverage(data_dir)
    with PredictionStore(data_dir, readonly=True) as predictions:
        model = predictions.model_version()
    return {"papers": coverage.papers, "labelled": coverage.labelled, "predicted": coverage.predicted,
            "without": coverage.without, "lists": list(coverage.labelled_lists), "model_version": model}


def _ingest_run(last: dict, summary: list, runs: int) -> dict:
    try:
        counts = orjson.loads(summary[0]["summary"]) if summary and summary[0]["summary"] else {}
    except orjson.JSONDecodeError:
        counts = {}
    return {"started_at": last["started_at"], "finished_at": last["finished_at"], "status": last["status"],
            "files": len(last["paths"]), "runs": runs,
            "counts": {key: value for key, value in counts.items() if isinstance(value, int)}}
