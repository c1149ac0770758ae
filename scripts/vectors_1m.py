"""The static first pass and the vector index build over a large corpus file, timed apart
(docs/semantic.md, "At 1M synthetic papers").

    python scripts/vectors_1m.py CORPUS.jsonl.gz DATA_DIR

The papers are read with eval.datasets.read_corpus (no store needed); papersift's own
embed_papers embeds them with the static model into DATA_DIR (its cache and a generation
published without its scan index), then write_index publishes the same rows with the faiss
scan index, as embed would past SCAN_MIN_ROWS (the HNSW index it wrote before took 1,238 s;
docs/semantic.md). Figures go to stdout and DATA_DIR.vectors-1m.json.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from papersift.eval.datasets import read_corpus
from papersift.index import embeddings, vectors
from papersift.models import STATIC_MODEL


def rss_mb() -> int:
    return round(int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20)


def peak_rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main(corpus: str, data_dir: str) -> dict:
    out: dict = {"corpus": corpus, "data_dir": data_dir}
    started = time.perf_counter()
    papers = list(read_corpus(corpus))
    out.update(read_s=round(time.perf_counter() - started, 1), papers=len(papers), rss_after_read_mb=rss_mb())
    print(out, flush=True)
    encoder = embeddings.make_encoder(STATIC_MODEL, threads=1)
    real_write, held = vectors.write_index, {}

    def write_without_scan(directory, model, ids, rows, *args, **options):
        held.update(ids=ids, rows=rows, args=args, options=options)
        return real_write(directory, model, ids, rows, *args, scan_min_rows=10**12, **options)

    vectors.write_index = write_without_scan
    started = last = time.perf_counter()

    def progress(state: embeddings.EmbedProgress) -> None:
        nonlocal last
        if time.perf_counter() - last > 60:
            last = time.perf_counter()
            print(f"  {state.embedded + state.cached:,} texts, {last - started:.0f} s", flush=True)

    summary = embeddings.embed_papers(data_dir, papers, encoder, last_seq=len(papers), on_progress=progress)
    out.update(embed_s=round(time.perf_counter() - started, 1), embedded=summary.embedded, cached=summary.cached,
               texts=summary.texts, embed_peak_rss_mb=peak_rss_mb())
    print(out, flush=True)
    vectors.write_index = real_write
    started = time.perf_counter()
    folder = real_write(data_dir, STATIC_MODEL, held["ids"], held["rows"], *held["args"], **held["options"])
    out.update(index_build_s=round(time.perf_counter() - started, 1),
               index_files={path.name: path.stat().st_size for path in folder.iterdir()},
               meta=json.loads((folder / "meta.json").read_text()), peak_rss_mb=peak_rss_mb())
    Path(f"{data_dir}.vectors-1m.json").write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
