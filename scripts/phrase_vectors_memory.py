"""The phrase-vector build's own memory, with a stand-in encoder (docs/scaling.md, "Phrase vectors
stream and are capped").

    PYTHONPATH=SRC /usr/bin/time -v python scripts/phrase_vectors_memory.py D MIN_PAPERS [LIMIT]

D holds a copy of a data dir's termlexicon.sqlite3 (the build writes D/vectors/use-m3@phrases).
The encoder gives random unit rows, so the figures are the build's (reading phrases, holding and
writing vectors), not the USE model's. LIMIT: the cap (code without one takes none).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from papersift.index import phrasevectors


def stand_in(texts: list[str]) -> np.ndarray:
    rows = np.random.default_rng(len(texts)).normal(size=(len(texts), phrasevectors.DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


if __name__ == "__main__":
    started = time.perf_counter()
    cap = {"limit": int(sys.argv[3])} if len(sys.argv) > 3 else {}
    stats = phrasevectors.build_phrase_vectors(sys.argv[1], stand_in, min_papers=int(sys.argv[2]), **cap)
    print(f"{phrasevectors.__file__}: {stats.phrases if stats else 0:,} phrases in {time.perf_counter() - started:.1f} s")
