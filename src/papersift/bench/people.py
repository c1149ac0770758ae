"""Author and venue pages: request latency through the HTTP app (p50 / p99 per kind), the
venue-year paper counts against the corpus manifest, and the acceptance rates of the
venue-years whose listings kept rejections.

JSON routes and HTML pages alike go through Starlette's in-process TestClient (routing, validation, JSON encoding
included; no socket). Authors: the most prolific identities and a seeded random sample;
venues: every venue and every venue-year.
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from urllib.parse import quote

import orjson

from papersift.people.venues import acceptance_rates
from papersift.store import Store

TOP_AUTHORS, RANDOM_AUTHORS, SEED = 50, 150, 19


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def manifest_check(store: Store, manifest_path: Path) -> dict:
    """Papers per venue-year in the store against manifest.json (main corpus + title-only)."""
    manifest = orjson.loads(manifest_path.read_bytes())["counts"]
    expected: dict[str, int] = {}
    for part in (manifest["papers"], manifest.get("title_only", {})):
        for key, count in part.items():
            expected[key] = expected.get(key, 0) + count
    found = {f"{row[0]} {row[1]}": row[2] for row in store.read(
        "SELECT venue, year, COUNT(*) FROM papers WHERE venue IS NOT NULL GROUP BY venue, year")}
    mismatches = {key: {"manifest": expected.get(key), "store": found.get(key)}
                  for key in sorted(set(expected) | set(found)) if expected.get(key) != found.get(key)}
    return {"venue_years": len(expected), "papers_manifest": sum(expected.values()),
            "papers_store": sum(found.values()), "mismatches": mismatches}


def run(data_dir: Path, manifest_path: Path | None, repeats: int = 3, log=print) -> dict:
    from fastapi.testclient import TestClient

    from papersift.api.security import LOOPBACK_HOSTS
    from papersift.server import create_app

    store = Store(data_dir, readonly=True)
    identities = [row[0] for row in store.read(
        "SELECT author_id FROM paper_authors WHERE author_id IS NOT NULL GROUP BY author_id ORDER BY COUNT(*) DESC")]
    if not identities:
        raise ValueError(f"no author identities in {data_dir}: run 'papersift authors build' first")
    sample = identities[:TOP_AUTHORS] + random.Random(SEED).sample(identities[TOP_AUTHORS:],
                                                                  min(RANDOM_AUTHORS, len(identities) - TOP_AUTHORS))
    venue_years = store.read("SELECT venue, year FROM papers WHERE venue IS NOT NULL GROUP BY venue, year")
    paths = {
        "author": [f"/api/authors/{quote(author, safe='')}" for author in sample],
        "venue": [f"/api/venues/{quote(venue)}" for venue in sorted({row[0] for row in venue_years})],
        "venue_year": [f"/api/venues/{quote(row[0])}/{row[1]}" for row in venue_years if row[1] is not None],
        "author_page": [f"/author/{quote(author, safe='')}?lang=en" for author in sample],
        "venue_year_page": [f"/venue/{quote(row[0])}/{row[1]}?lang=en" for row in venue_years if row[1] is not None],
    }
    client = TestClient(create_app(data_dir, allowed_hosts=LOOPBACK_HOSTS), base_url="http://127.0.0.1")
    latency = {}
    for kind, urls in paths.items():
        for url in urls[:3]:
            client.get(url)  # warm: the first request opens the store
        timings = []
        for _ in range(repeats):
            for url in urls:
                started = time.perf_counter()
                response = client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    raise RuntimeError(f"{url}: HTTP {response.status_code}: {response.text[:200]}")
        latency[kind] = {"requests": len(timings), "p50_ms": round(statistics.median(timings), 2),
                         "p99_ms": round(_percentile(timings, 0.99), 2), "max_ms": round(max(timings), 2)}
        log(f"{kind}: {latency[kind]}")
    acceptance = {}
    for venue in sorted({row[0] for row in venue_years}):
        for year, rate in acceptance_rates(store, venue).items():
            acceptance[f"{venue} {year}"] = rate
    return {
        "data_dir": str(data_dir), "papers": store.count(), "authors": len(identities), "latency": latency,
        "manifest": manifest_check(store, manifest_path) if manifest_path else None,
        "acceptance": acceptance,
    }


def markdown(report: dict) -> str:
    lines = [f"# Author and venue pages ({report['papers']:,} papers, {report['authors']:,} authors)", "",
             "| page | requests | p50 ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|"]
    for kind, row in report["latency"].items():
        lines.append(f"| {kind} | {row['requests']} | {row['p50_ms']} | {row['p99_ms']} | {row['max_ms']} |")
    manifest = report["manifest"]
    if manifest:
        summary = (f"Venue-year counts vs manifest.json: {manifest['venue_years']} venue-years, "
                   f"{manifest['papers_manifest']:,} papers in the manifest, {manifest['papers_store']:,} in the store, "
                   f"{len(manifest['mismatches'])} mismatches.")
        lines += ["", summary]
        lines += [f"- {key}: manifest {value['manifest']}, store {value['store']}"
                  for key, value in manifest["mismatches"].items()]
    lines += ["", "| venue-year | submitted | accepted | rate | main track | main rate | not accepted |",
              "|---|---:|---:|---:|---:|---:|---|"]
    for key, rate in report["acceptance"].items():
        rejected = ", ".join(f"{status} {n}" for status, n in rate["not_accepted"].items())
        lines.append(f"| {key} | {rate['submitted']} | {rate['accepted']} | {rate['rate']:.1%} | "
                     f"{rate['accepted_main']} | {rate['main_rate']:.1%} | {rejected} |")
    return "\n".join(lines)
