"""Checks the publish tests share: what a live lexical index holds, verified document by document."""

from __future__ import annotations

import tantivy

from papersift.index.facetkeys import FACET_CODE_FIELDS, facet_keys
from papersift.index.rows import RowReader


def live_content(index: tantivy.Index, searcher: tantivy.Searcher, rows: RowReader) -> dict:
    """Every live document's paper by id, after checking that the document's row, id term and
    facet codes all belong to that paper (a row store out of step with tantivy fails here)."""
    addresses = [address for _, address in searcher.search(tantivy.Query.all_query(), 1_000_000).hits]
    assert len(addresses) == searcher.num_docs
    row_of = searcher.fast_field_values("row", addresses)
    papers = rows.papers(row_of)
    assert rows.paper_ids(row_of) == [paper.id for paper in papers]
    codes = rows.facet_codes(row_of).tolist()
    for column, name in enumerate(FACET_CODE_FIELDS):
        assert searcher.fast_field_values(name, addresses) == [code[column] for code in codes]
    assert [tuple(rows.keys[group][code] for group, code in enumerate(paper_codes)) for paper_codes in codes] \
        == [facet_keys(paper) for paper in papers]
    content = {paper.id: paper for paper in papers}
    assert len(content) == len(papers), "a paper indexed twice"
    for paper_id, row in zip(rows.paper_ids(row_of), row_of):  # the document's own id term finds that row
        hits = searcher.search(tantivy.Query.term_query(index.schema, "id", paper_id), 2).hits
        assert searcher.fast_field_values("row", [address for _, address in hits]) == [row]
    return content
