"""Wall and CPU time of one `papersift search TERM --mode keyword` process per zhterms dev term
(the first N Chinese terms in file order), for each source tree given (its .venv's papersift):
what a user of the CLI waits for a Chinese term (docs/crosslingual.md, "The CLI").

    python scripts/cli_zh_terms.py DATA_DIR N TREE [TREE ...]

Compile the bytecode of each tree's src and site-packages first (`python -m compileall`), or the
first runs pay for it.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

import orjson

from papersift.config import shared_data_dir


def main(data_dir: str, count: int, trees: list[str]) -> None:
    records = [orjson.loads(line) for line in (shared_data_dir() / "zhterms" / "queries_dev.jsonl").read_bytes().splitlines()]
    terms = [record["text"] for record in records if record["lang"] == "zh"][:count]
    runs: dict[str, list[tuple[str, float, float]]] = {tree: [] for tree in trees}
    for term in terms:
        for tree in trees:  # alternating, so the trees share the machine's swings
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([f"{tree}/.venv/bin/papersift", "search", term, "--mode", "keyword", "--data-dir", data_dir],
                           capture_output=True, check=True)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            runs[tree].append((term, wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    for tree, timed in runs.items():
        walls = [wall for _, wall, _ in timed]
        cpus = [cpu for _, _, cpu in timed]
        over = [term for term, wall, _ in timed if wall > 1.0]
        print(f"{tree}: wall p50 {statistics.median(walls):.2f} s, max {max(walls):.2f} s; CPU p50 "
              f"{statistics.median(cpus):.2f} s, max {max(cpus):.2f} s; over 1 s wall: {len(over)} of {len(walls)} {over}")
    print("load average", " ".join(f"{load:.2f}" for load in os.getloadavg()))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
