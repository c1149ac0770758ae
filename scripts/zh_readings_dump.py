"""Every Chinese reading of the dev sets, one line each, to compare two checkouts byte for byte:
the 300 zhterms dev terms, the same terms in traditional characters, and the 25 known-item zh dev
descriptions, each read once in one warm process as a server reads them (after its warm-up), in
order. A reading is the whole QueryReading (its English, every term's reading, alternatives,
papers, confidence and source, the extra words); the line also holds the query that the keyword
page searches for it (crosslingual.phrase_query), so a change in what is searched shows too.

    python scripts/zh_readings_dump.py DATA_DIR > before.txt   # (another checkout: PYTHONPATH=<it>/src)
    diff before.txt after.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from papersift.api.warmup import Warmup
from papersift.config import shared_data_dir
from papersift.search.crosslingual import phrase_query
from papersift.search.query import parse_query
from papersift.search.service import SearchService
from papersift.search.zhnorm import traditional


def texts() -> list[tuple[str, str]]:
    """(set, text) of every Chinese dev text, in the benches' order."""
    shared = shared_data_dir()
    terms = [orjson.loads(line) for line in (shared / "zhterms" / "queries_dev.jsonl").read_bytes().splitlines()]
    zh = [record["text"] for record in terms if record["lang"] == "zh"]
    known = [orjson.loads(line) for line in (shared / "knownitem" / "queries_dev.jsonl").read_bytes().splitlines()]
    return ([("zhterms", text) for text in zh] + [("zhterms-traditional", traditional(text)) for text in zh]
            + [("knownitem", record["text"]) for record in known if record.get("lang") == "zh"])


def main(data_dir: Path) -> None:
    service = SearchService(data_dir)
    Warmup().run(service, data_dir)  # as `serve` warms up before it says ready
    for name, text in texts():
        reading = service.reading_of(text)
        phrased = phrase_query(parse_query(text), reading, service.term_lexicon, service.phrase_papers,
                               service.term_doc_freq) if reading else None
        sys.stdout.write(f"{name}\t{text}\t{reading!r}\t{phrased!r}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
