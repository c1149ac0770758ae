"""Keyword result pages of the fixture corpus as a comparable record: what a page shows (ids,
scores, total, facets, highlighted title and abstract, the papers, notices), so that work on
the page path's speed can prove the pages unchanged (tests/search/test_page_golden.py).

The golden file was written by the code before that work (issue #32, `bench lexical`):

    .venv/bin/python tests/search/page_golden.py DATA_DIR tests/search/golden/pages.json

where DATA_DIR (made when missing) is built as the `indexed_dir` of the search tests: the
fixture sample ingested, then lexical.build and termlexicon.build_for_store
(tests/search/conftest.py indexed_copy). Two builds give the same file (checked).
Only English queries: a Chinese query's page depends on its reading, which other work changes.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import orjson

from papersift.index.analyzers import terms
from papersift.search.highlight import Highlighter
from papersift.search.types import Filters, SearchRequest

GOLDEN = Path(__file__).resolve().parent / "golden" / "pages.json"

QUERIES = [
    "graph neural networks", "reinforcement learning", "diffusion", "transformer attention",
    '"neural network"', "optimization -convex", "diffusion OR flow", "title:transformer",
    "venue:ICLR graph", "year:2020..2022 reinforcement", "learning has:code", "the of and",
    "quantum chromodynamics lattice spectroscopy neural", "self-attention", "studies", "policy",
    "policy gradient methods for continuous control with deep function approximation and replay",
    ("we propose a new method for learning representations of graphs that generalizes across "
     "datasets and tasks with few labels"), "<script>alert(1)</script> graph", "state-of-the-art",
    "GANs", "bayesian inference variational", "federated learning privacy", "sparse", "language models",
    "zzzzqqqxx", "3d point clouds", "bert 2019", "Schrödinger", "robust & efficient", "learning",
    "area:\"Deep Learning\" networks", "status:oral", "-learning", "model model model", "x27 amp",
    "adversarial examples NOT defense", "keyword:robustness", "meta-learning few-shot",
    "convolutional neural networks for image classification",
]

# (query, request options): sorts, later pages, page sizes, filters in the request
REQUESTS: list[tuple[str, dict]] = [
    *[(query, {}) for query in QUERIES],
    ("graph", {"sort": "newest"}), ("graph", {"sort": "oldest"}), ("learning", {"page": 3}),
    ("learning", {"size": 7}), ("", {"sort": "newest"}), ("", {"filters": Filters(venues=("ICML",))}),
    ("networks", {"filters": Filters(year_from=2018, year_to=2021)}),
    ("policy gradient", {"with_facets": False}),
]

# Query term sets marked over every fixture text by the highlighter alone (prefix overlaps,
# stems ending in i, entity names, digits, accents).
HIGHLIGHT_QUERIES = [
    "graph networks", "learn learners learning", "study policy", "amp lt quot x27", "3d 2019 bert",
    "attention transformer", "model", "ing", "a an the", "schrödinger equation", "data", "neural",
    "image images imaging", "optimiz optimization", "reinforcement",
]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def page_record(service, query: str, options: dict) -> dict:
    response = service.search(SearchRequest(query=query, mode="keyword", **options))
    return {
        "query": query, "options": repr(options), "total": response.total,
        "total_counts": response.total_counts, "keyword_matches": response.keyword_matches,
        "notices": [[getattr(notice, "code", ""), str(notice)] for notice in response.notices],
        "facets": {name: [[value.value, value.count] for value in values]
                   for name, values in response.facets.items()},
        "hits": [{"id": hit.paper.id, "score": repr(hit.score), "title": hit.highlights.get("title"),
                  "abstract": _digest(hit.highlights.get("abstract", "")),
                  "highlights": sorted(hit.highlights), "paper": _digest(repr(hit.paper)),
                  "predicted": [hit.topic_predicted, hit.topic_confidence]} for hit in response.hits],
        "suggestion": response.suggestion, "reading": repr(response.reading), "intent": repr(response.intent),
    }


def highlight_record(texts: list[str | None]) -> dict[str, str]:
    """Per query, a digest of the marked texts (joined as one page, and each alone)."""
    found = {}
    for query in HIGHLIGHT_QUERIES:
        marker = Highlighter(frozenset(terms(query)))
        together = marker.mark_many(texts)
        alone = [marker(text) for text in texts[:200]]
        found[query] = _digest("\x02".join(together)) + "/" + _digest("\x02".join(alone))
    return found


def fixture_texts(records: list[dict]) -> list[str | None]:
    """Titles and abstracts of every 4th fixture paper, as stored."""
    return [record.get(name) for record in records[::4] for name in ("title", "abstract")]


def capture(service, records: list[dict]) -> dict:
    return {"pages": [page_record(service, query, options) for query, options in REQUESTS],
            "highlights": highlight_record(fixture_texts(records))}


def main(data_dir: str, out: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from conftest import SAMPLE, read_jsonl_gz
    from papersift.search.service import SearchService

    if not Path(data_dir).exists():
        build(Path(data_dir), read_jsonl_gz(SAMPLE))
    record = capture(SearchService(data_dir), read_jsonl_gz(SAMPLE))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(dumps(record))


def build(data_dir: Path, records: list[dict]) -> None:
    """The search tests' indexed data dir of the fixture sample (as sample_data_dir + indexed_copy)."""
    from papersift.index import lexical, termlexicon
    from papersift.ingest.pipeline import ingest_paths
    from papersift.store import Store

    data_dir.mkdir(parents=True)
    source = data_dir.parent / f"{data_dir.name}.jsonl"
    source.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    if ingest_paths(Store(data_dir), [source]).rejected:
        raise SystemExit(f"{source}: fixture records were rejected")
    lexical.build(data_dir)
    termlexicon.build_for_store(data_dir)


def dumps(record: dict) -> bytes:
    """One page a line (a change shows as the pages that changed)."""
    pages = b",\n".join(orjson.dumps(page, option=orjson.OPT_SORT_KEYS) for page in record["pages"])
    return b'{"highlights": ' + orjson.dumps(record["highlights"], option=orjson.OPT_SORT_KEYS) + b',\n"pages": [\n' + pages + b"\n]}\n"


if __name__ == "__main__":
    main(*sys.argv[1:3])
