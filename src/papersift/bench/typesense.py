"""Typesense cluster benchmark: parity with the embedded backend, memory per paper, failover.

Starts an N-node cluster on 127.0.0.1 in a scratch folder, pushes a data dir's store into
it, then measures: import rate; each node's resident memory before and after (text
fields), and after a second collection holding the papers' vectors (float[] field);
top-10 agreement with the embedded backend over the shared query strings; and the
failover drill (leader killed under query and write load). Writes JSON + markdown.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from pathlib import Path

import numpy as np

from papersift.backends.typesense_backend import TypesenseBackend
from papersift.backends.typesense_index import build_collection, make_client, wait_for_count
from papersift.cluster.failover import run_failover_drill
from papersift.cluster.typesense_cluster import TypesenseCluster, loopback_nodes, process_rss_bytes
from papersift.search.query import parse_query
from papersift.search.service import SearchService
from papersift.search.types import SearchRequest
from papersift.store import Store

VECTOR_BATCH = 1000


def cluster_rss(cluster: TypesenseCluster) -> list[int]:
    """Each node's resident memory; a node that is not running is an error, not /proc/None."""
    sizes = []
    for name in cluster.nodes:
        pid = cluster.pid(name)
        if pid is None:
            raise RuntimeError(f"typesense node {name} is not running: no memory to measure")
        sizes.append(process_rss_bytes(pid))
    return sizes


def top10_agreement(embedded: SearchService, clustered: SearchService, queries: list[str]) -> dict:
    per_query: list[dict] = []
    for text in queries:
        request = SearchRequest(query=text, mode="keyword", size=10)
        expected = [hit.paper.id for hit in embedded.search(request).hits]
        got = [hit.paper.id for hit in clustered.search(request).hits]
        agreement = len(set(expected) & set(got)) / len(expected) if expected else float(not got)
        per_query.append({"query": text, "agreement": agreement, "exact_order": expected == got})
    return {
        "queries": len(per_query),
        "mean_top10_agreement": round(sum(q["agreement"] for q in per_query) / len(per_query), 4),
        "identical_top10_order": sum(q["exact_order"] for q in per_query),
        "below_1": [q for q in per_query if q["agreement"] < 1],
    }


def vector_memory(client, cluster: TypesenseCluster, paper_ids: list[str], dim: int, seed: int = 0) -> dict:
    """Resident memory a float[dim] field adds: a collection of unit vectors, one per paper."""
    before = cluster_rss(cluster)
    name = f"vectors_probe_{secrets.token_hex(4)}"
    client.collections.create({"name": name, "fields": [{"name": "embedding", "type": "float[]", "num_dim": dim}]})
    rng = np.random.default_rng(seed)
    for start in range(0, len(paper_ids), VECTOR_BATCH):
        ids = paper_ids[start:start + VECTOR_BATCH]
        vectors = rng.standard_normal((len(ids), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        documents = [{"id": paper_id, "embedding": vector.tolist()} for paper_id, vector in zip(ids, vectors)]
        client.collections[name].documents.import_(documents, {"action": "upsert"})
    wait_for_count(client, name, len(paper_ids))
    time.sleep(2)
    after = cluster_rss(cluster)
    client.collections[name].delete()
    return {"papers": len(paper_ids), "dim": dim, "rss_before": before, "rss_after": after}


def run_typesense_bench(data_dir: Path, queries: list[str], nodes: int = 3, vector_dim: int = 384,
                        drill: bool = True) -> dict:
    api_key = secrets.token_hex(16)
    store = Store(data_dir, readonly=True)
    papers = store.count()
    with (tempfile.TemporaryDirectory(prefix="papersift-ts-bench-") as scratch,
          TypesenseCluster(scratch, loopback_nodes(nodes), api_key) as cluster):
        cluster.start(wait=120)
        idle = cluster_rss(cluster)
        client = make_client(cluster.node_urls(), api_key, timeout=10)
        built = build_collection(client, store)
        time.sleep(2)
        with_text = cluster_rss(cluster)
        backend = TypesenseBackend(client)
        agreement = top10_agreement(SearchService(data_dir), SearchService(data_dir, backend=backend), queries)
        paper_ids = [paper.id for _, paper in store.iter_papers()]
        vectors = vector_memory(client, cluster, paper_ids, vector_dim)
        report = {
            "nodes": nodes, "papers": papers, "import_seconds": round(built.seconds, 1),
            "import_papers_per_s": round(built.imported / built.seconds, 1),
            "rss_idle_mb": [round(b / 2**20, 1) for b in idle],
            "rss_with_text_mb": [round(b / 2**20, 1) for b in with_text],
            "text_mb_per_million_papers": round(
                float(np.mean(np.subtract(with_text, idle))) / 2**20 / papers * 1e6, 0),
            "vectors": vectors,
            "vector_mb_per_million_papers": round(
                float(np.mean(np.subtract(vectors["rss_after"], vectors["rss_before"]))) / 2**20 / papers * 1e6, 0),
            "agreement": agreement,
        }
        if drill:
            parsed = [parse_query(text) for text in queries[:20]]

            def search(step: int) -> None:
                backend.search(parsed[step % len(parsed)], limit=10)

            writes = [paper for _, paper in store.iter_papers(batch_size=50)][:50]
            report["failover"] = run_failover_drill(cluster, search, client, built.collection, writes).as_dict()
    return report


def markdown_report(report: dict) -> str:
    agreement = report["agreement"]
    lines = [
        f"# Typesense cluster: {report['nodes']} nodes on 127.0.0.1, {report['papers']:,} papers", "",
        "| figure | value |", "|---|---|",
        f"| import | {report['import_seconds']} s ({report['import_papers_per_s']} papers/s) |",
        f"| RSS per node, idle → with text (MB) | {report['rss_idle_mb']} → {report['rss_with_text_mb']} |",
        f"| text: RAM per node per million papers | {report['text_mb_per_million_papers']:,.0f} MB |",
        (f"| vectors ({report['vectors']['dim']}-d float): RAM per node per million papers | "
        f"{report['vector_mb_per_million_papers']:,.0f} MB |"),
        (f"| top-10 agreement with the embedded backend ({agreement['queries']} queries) | "
        f"{agreement['mean_top10_agreement']} (identical order: {agreement['identical_top10_order']}) |"),
    ]
    if "failover" in report:
        drill = report["failover"]
        lines += [
            f"| failover: election after leader kill | {drill['election_s']} s |",
            (f"| failover: queries / errors / errors outside the {drill['failover_window_s']} s window | "
            f"{drill['queries']} / {drill['query_errors']} / {drill['query_errors_outside_window']} |"),
            (f"| failover: writes / errors / errors outside the window | "
            f"{drill['writes']} / {drill['write_errors']} / {drill['write_errors_outside_window']} |"),
            (f"| killed node back in step | {drill['rejoin_s']} s ({drill['rejoined_documents']:,} of "
            f"{drill['leader_documents']:,} documents) |"),
        ]
    return "\n".join(lines) + "\n"

