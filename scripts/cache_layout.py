"""The embedding cache's SQLite layouts side by side (docs/semantic.md, "The embedding cache").

Writes 20,000 random float32 vectors of 256 and 384 dimensions under 20-byte keys into a
WITHOUT ROWID table (the cache before version 1) and into a rowid table with a unique key
(version 1), then prints the bytes per vector, the write time and the time of 5,000 lookups
in blocks of 500, as `EmbeddingCache.get_many` reads. Usage: python scripts/cache_layout.py [DIR]
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from papersift.index.embeddings import CACHE_TABLE

LAYOUTS = {
    "WITHOUT ROWID (before)": "CREATE TABLE vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID",
    "rowid table": CACHE_TABLE,
}
ROWS, LOOKUPS, BLOCK = 20_000, 5_000, 500


def measure(path: Path, create: str, dim: int, rng: np.random.Generator) -> tuple[float, float, float]:
    keys = [hashlib.sha1(str(number).encode()).digest() for number in range(ROWS)]
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(create)
    started = time.perf_counter()
    for start in range(0, ROWS, 1000):
        with db:
            db.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                           [(key, rng.normal(size=dim).astype(np.float32).tobytes()) for key in keys[start:start + 1000]])
    written = time.perf_counter() - started
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wanted = [keys[number] for number in rng.choice(ROWS, LOOKUPS)]
    started = time.perf_counter()
    for start in range(0, LOOKUPS, BLOCK):
        chunk = wanted[start:start + BLOCK]
        db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    read = time.perf_counter() - started
    db.close()
    return path.stat().st_size / ROWS, written, read


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="cache-layout-"))
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    print("| dim | layout | bytes per vector | write s | lookups s |\n|---|---|---:|---:|---:|")
    for dim in (256, 384):
        for number, (name, create) in enumerate(LAYOUTS.items()):
            size, written, read = measure(folder / f"{dim}-{number}.sqlite3", create, dim, rng)
            print(f"| {dim} | {name} | {size:,.0f} | {written:.2f} | {read:.3f} |")


if __name__ == "__main__":
    main()
