"""Failover drill: steady queries and writes against a cluster while its leader is killed.

A query thread searches through TypesenseBackend (the client spreads requests over every
node and retries elsewhere), a writer thread upserts papers through the client, the
leader gets SIGKILL, a new leader is elected, the killed node is started again and must
catch up. Every request is timed; the report says how many failed, when, and whether any
failed outside the failover window (kill → new leader elected and the surviving nodes
healthy again, plus `grace_s` for clients to move off the dead node).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import httpx

from papersift.backends.typesense_index import ALIAS, paper_document
from papersift.cluster.typesense_cluster import TypesenseCluster
from papersift.record import Paper


@dataclass
class RequestLog:
    started: list[float] = field(default_factory=list)
    failed_at: list[float] = field(default_factory=list)  # when each failed request started
    failed_until: list[float] = field(default_factory=list)  # and when its failure came back
    errors: list[str] = field(default_factory=list)

    def record(self, started: float, error: Exception | None, ended: float | None = None) -> None:
        self.started.append(started)
        if error is not None:
            self.failed_at.append(started)
            self.failed_until.append(started if ended is None else ended)
            self.errors.append(f"{type(error).__name__}: {error}"[:200])

    def succeeded_after(self, moment: float) -> int:
        """Requests sent after `moment` that succeeded."""
        return sum(1 for started in self.started if started > moment) - sum(1 for started in self.failed_at
                                                                              if started > moment)


@dataclass(frozen=True, slots=True)
class DrillReport:
    queries: int
    query_errors: int
    query_errors_outside_window: int
    writes: int
    write_errors: int
    write_errors_outside_window: int
    queries_after_window: int  # succeeded, sent after the failover window closed
    writes_after_window: int
    killed_node: str
    new_leader: str
    election_s: float
    failover_window_s: float
    last_query_error_after_kill_s: float | None
    rejoin_s: float
    rejoined_documents: int
    leader_documents: int
    sample_errors: list[str]
    errors_outside_window: list[str]  # "<seconds after the kill>s <what failed>"

    def as_dict(self) -> dict:
        return asdict(self)


def _loop(stop: threading.Event, log: RequestLog, action: Callable[[int], None], pause_s: float) -> None:
    step = 0
    while not stop.is_set():
        started = time.monotonic()
        try:
            action(step)
            log.record(started, None)
        except Exception as error:  # noqa: BLE001  every failure is counted, none stops the load
            log.record(started, error, time.monotonic())
        step += 1
        time.sleep(pause_s)


def _in_window(started: float, ended: float, window_start: float, window_end: float) -> bool:
    """Whether a failed request was in flight during the window: one sent just before the kill
    fails because of it."""
    return started <= window_end and ended >= window_start


def _outside(log: RequestLog, window_start: float, window_end: float) -> int:
    return sum(1 for started, ended in zip(log.failed_at, log.failed_until)
               if not _in_window(started, ended, window_start, window_end))


def _describe_outside(log: RequestLog, window_start: float, window_end: float) -> list[str]:
    return [f"{started - window_start:+.2f}s {error}"
            for started, ended, error in zip(log.failed_at, log.failed_until, log.errors)
            if not _in_window(started, ended, window_start, window_end)]


def node_document_count(cluster: TypesenseCluster, name: str, collection: str) -> int:
    node = cluster.nodes[name]
    response = httpx.get(f"{node.url}/collections/{collection}", headers={"X-TYPESENSE-API-KEY": cluster.api_key},
                         timeout=5)
    response.raise_for_status()
    return int(response.json()["num_documents"])


def run_failover_drill(cluster: TypesenseCluster, search: Callable[[int], None], client, collection: str,
                       write_papers: list[Paper], warmup_s: float = 2.0, after_s: float = 3.0,
                       grace_s: float = 1.0, query_pause_s: float = 0.02, write_pause_s: float = 0.1,
                       catch_up_s: float = 180.0) -> DrillReport:
    """`search(step)` runs one query (raising on failure); writes upsert `write_papers` in turn."""
    stop = threading.Event()
    queries, writes = RequestLog(), RequestLog()

    def write(step: int) -> None:
        paper = write_papers[step % len(write_papers)]
        updated = replace(paper, id=f"drill-{step}", tldr=f"drill write {step}")
        client.collections[ALIAS].documents.upsert(paper_document(10_000_000 + step, updated))

    threads = [threading.Thread(target=_loop, args=(stop, queries, search, query_pause_s), daemon=True),
               threading.Thread(target=_loop, args=(stop, writes, write, write_pause_s), daemon=True)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(warmup_s)
        old_leader = cluster.wait_ready()
        killed_at = time.monotonic()
        cluster.kill(old_leader.name)
        new_leader, election_s = cluster.wait_leader_change(old_leader.name)
        cluster.wait_ready()  # the surviving nodes are healthy again under the new leader
        window_end = time.monotonic() + grace_s
        time.sleep(after_s)
        rejoin_started = time.monotonic()
        cluster.start_node(old_leader.name)
        cluster.wait_ready(timeout=catch_up_s)
        rejoined, leader_documents = 0, -1
        deadline = time.monotonic() + catch_up_s
        while time.monotonic() < deadline:  # catching up: replay the log / install a snapshot
            leader_documents = node_document_count(cluster, new_leader.name, collection)
            try:
                rejoined = node_document_count(cluster, old_leader.name, collection)
            except httpx.HTTPError:
                rejoined = 0
            if rejoined >= leader_documents:
                break
            time.sleep(0.2)
        rejoin_s = time.monotonic() - rejoin_started
        time.sleep(after_s)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    failed_after_kill = [moment - killed_at for moment in queries.failed_at if moment >= killed_at]
    return DrillReport(
        queries=len(queries.started), query_errors=len(queries.failed_at),
        query_errors_outside_window=_outside(queries, killed_at, window_end),
        writes=len(writes.started), write_errors=len(writes.failed_at),
        write_errors_outside_window=_outside(writes, killed_at, window_end),
        queries_after_window=queries.succeeded_after(window_end), writes_after_window=writes.succeeded_after(window_end),
        killed_node=old_leader.name, new_leader=new_leader.name, election_s=round(election_s, 2),
        failover_window_s=round(window_end - killed_at, 2),
        last_query_error_after_kill_s=round(max(failed_after_kill), 2) if failed_after_kill else None,
        rejoin_s=round(rejoin_s, 2), rejoined_documents=rejoined, leader_documents=leader_documents,
        sample_errors=(queries.errors + writes.errors)[:5],
        errors_outside_window=(_describe_outside(queries, killed_at, window_end)
                               + _describe_outside(writes, killed_at, window_end))[:10],
    )
