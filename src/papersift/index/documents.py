"""The lexical index's document model: the tantivy schema, a paper's document, and the
institutions a paper is indexed under (their codes, a generation's institutions.json)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson
import tantivy

from papersift.index.analyzers import ENGLISH, EXACT, NAMES, segment_cjk
from papersift.index.debris import clean_extraction_debris, indexed_text
from papersift.index.facetkeys import FACET_CODE_FIELDS, HAS_CODE
from papersift.index.publish import write_atomically
from papersift.record import Paper

# Exact-value fields, indexed lowercased for filters.
EXACT_FIELDS = ("venue", "area", "subarea", "status")
# A paper has several institutions (one or more per author), so they cannot be one facet key:
# `institution` (lowercased, for filters) holds each of them once, and `institution_code`
# (a multi-valued fast field) its code in INSTITUTIONS_FILE, the generation's list of names
# (as written, append-only like facet keys). A terms aggregation over the codes counts them:
# 1.3 ms over the full corpus's 44,693 papers, where one over a text fast field of the names
# took 5.6 ms (16,000 spellings).
INSTITUTIONS_FILE = "institutions.json"


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", tokenizer_name="raw", index_option="basic")  # deletes, pools
    builder.add_unsigned_field("row", fast=True)  # where the record, id and facet key are (rows.py)
    builder.add_text_field("text", tokenizer_name=ENGLISH)  # title + abstract + keywords: one BM25 field
    builder.add_text_field("title", tokenizer_name=ENGLISH)
    builder.add_text_field("keywords", tokenizer_name=ENGLISH)
    builder.add_text_field("authors", tokenizer_name=NAMES)
    for name in EXACT_FIELDS:
        builder.add_text_field(name, tokenizer_name=EXACT, index_option="basic")
    for name in FACET_CODE_FIELDS:
        builder.add_unsigned_field(name, fast=True)  # code of the paper's facet key in a group (rows.py)
    builder.add_text_field("code", tokenizer_name=EXACT, index_option="basic")
    builder.add_text_field("institution", tokenizer_name=EXACT, index_option="basic")
    builder.add_unsigned_field("institution_code", fast=True)
    builder.add_integer_field("year", indexed=True, fast=True)
    return builder.build()


def paper_document(paper: Paper, row: int, facet_codes: tuple[int, ...],
                   institutions: Sequence[tuple[str, int]] = ()) -> tantivy.Document:
    document = tantivy.Document()
    document.add_text("id", paper.id)
    document.add_unsigned("row", row)
    title = segment_cjk(clean_extraction_debris(paper.title))
    abstract = segment_cjk(indexed_text(paper.abstract)) if paper.abstract else ""
    keywords = [segment_cjk(keyword) for keyword in paper.keywords]
    document.add_text("text", " \n ".join([title, abstract, *keywords]))
    document.add_text("title", title)
    for keyword in keywords:
        document.add_text("keywords", keyword)
    for author in paper.authors:
        document.add_text("authors", author)
    for name in EXACT_FIELDS:
        value = getattr(paper, name)
        if value:
            document.add_text(name, value)
    for name, code in zip(FACET_CODE_FIELDS, facet_codes):
        document.add_unsigned(name, code)
    if paper.code_url:
        document.add_text("code", HAS_CODE)
    for name, code in institutions:  # (name, code): the paper's paper_institutions
        document.add_text("institution", name)
        document.add_unsigned("institution_code", code)
    if paper.year is not None:
        document.add_integer("year", paper.year)
    return document


def paper_institutions(paper: Paper) -> list[str]:
    """The paper's institutions, each once, as the listing writes them: every author's
    affiliation split at '+' (the listings' "two institutions"), in author order."""
    found: dict[str, str] = {}
    for affiliation in paper.affiliations:
        for part in affiliation.split("+"):
            name = " ".join(part.split())[:200]
            if name:
                found.setdefault(name.casefold(), name)
    return list(found.values())


class InstitutionCodes:
    """A generation's institution names by code: read from the folder (an update's staging
    holds a link to the live generation's list), extended, and saved by a rename, which never
    writes through that link into the live generation."""

    def __init__(self, folder: Path):
        self.path = folder / INSTITUTIONS_FILE
        self.names: list[str] = read_institution_names(folder)
        self._code = {name: code for code, name in enumerate(self.names)}
        self._added = False

    def of(self, paper: Paper) -> list[tuple[str, int]]:
        found = []
        for name in paper_institutions(paper):
            code = self._code.get(name)
            if code is None:
                code = self._code[name] = len(self.names)
                self.names.append(name)
                self._added = True
            found.append((name, code))
        return found

    def save(self) -> None:
        if self._added or not self.path.exists():
            write_atomically(self.path, orjson.dumps(self.names))


def read_institution_names(folder: Path) -> list[str]:
    try:
        return orjson.loads((folder / INSTITUTIONS_FILE).read_bytes())
    except FileNotFoundError:
        return []

