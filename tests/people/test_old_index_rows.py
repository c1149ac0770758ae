"""Index rows written before store schema 3 (15 values per paper) still decode: the new
fields come back empty and `source` stays `source` (a positional decode would shift it)."""

from __future__ import annotations

import orjson

from papersift.index.rows import decode_paper, encode_paper
from papersift.record import Paper


def test_rows_without_schema3_fields_decode():
    old = ["ICML-2020-x", "A title", ["Ann Lee"], "An abstract", "ICML", 2020, None, None, ["kw"], None, None,
           "Poster", None, None, "paperlists:icml/icml2020.json"]
    paper = decode_paper(orjson.dumps(old))
    assert paper.source == "paperlists:icml/icml2020.json" and paper.authors == ("Ann Lee",)
    assert paper.author_ids == () and paper.citations is None and paper.code_url is None


def test_rows_round_trip_schema3_fields():
    paper = Paper(id="P", title="T", authors=("A", "B"), author_ids=("~A1", ""), affiliations=("MIT", ""),
                  citations=12, citations_as_of="2026-02-23", code_url="https://github.com/a/b", source="s")
    assert decode_paper(encode_paper(paper)) == paper
