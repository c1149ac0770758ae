"""Push the store into a Typesense collection: versioned schema, batched resumable import,
alias swap.

Readers only ever search the alias `papers` (ALIAS). A full build imports into a new
collection `papers_s<schema>_<stamp>`; only when every paper is in does the alias move
to it (one atomic call), so no reader ever sees a half-built collection. A killed build
resumes: the newest unaliased collection of the current schema is reused and the import
goes on from the highest store seq it holds. An update upserts the papers whose seq is
past the live collection's highest seq, in place.

Each document holds the paper's fields as stored (for display), the index terms of its
text fields made by papersift's own analyzers (so both backends match the same stemmed
words), the exact-value facet fields, per-field term counts for BM25, and optionally the
paper's embedding as a float[] field for vector search.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import orjson
import typesense

from papersift.index.analyzers import ENGLISH, NAMES, terms
from papersift.index.debris import clean_extraction_debris, indexed_text
from papersift.record import Paper
from papersift.store import Store

if TYPE_CHECKING:
    from typesense.configuration import NodeConfigDict
    from typesense.types.collection import CollectionCreateSchema, CollectionSchema

SCHEMA_VERSION = 4  # 4: text without PDF-extraction debris, as the embedded index's schema 9
ALIAS = "papers"
META_COLLECTION = "papersift_meta"
COLLECTION_PREFIX = f"papers_s{SCHEMA_VERSION}_"
IMPORT_BATCH = 500
# Typesense field -> papersift field; each holds that field's index terms, space-joined.
# `text` is title + abstract + keywords as one field, as the embedded index scores it.
TERM_FIELDS = {
    "title_terms": "title",
    "abstract_terms": "abstract",
    "keywords_terms": "keywords",
    "text_terms": "text",
    "authors_terms": "authors",
}
REPEATED_TERMS = {"text_tf2": 2, "text_tf4": 4}  # field -> least times a term occurs in `text`
FACET_STRING_FIELDS = ("venue", "area", "subarea", "status")

ProgressCallback = Callable[[int], None]


class TypesenseIndexError(RuntimeError):
    """An import the cluster rejected (the message names the paper and the reason)."""


def make_client(nodes: list[str], api_key: str, timeout: float = 5.0, retries: int = 5) -> typesense.Client:
    """A client that spreads requests over `nodes` ("host:port" or URLs) and fails over between them."""
    node_configs: list[str | NodeConfigDict] = []
    for node in nodes:
        address = node.split("://", 1)[-1]
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"node {node!r} is not host:port")
        node_configs.append({"host": host, "port": int(port), "protocol": "http"})
    return typesense.Client({
        "nodes": node_configs,
        "api_key": api_key,
        "connection_timeout_seconds": timeout,
        "num_retries": retries,
        "retry_interval_seconds": 0.25,  # retries span ~1 s: a dead node is skipped, a busy one waited for
        "healthcheck_interval_seconds": 2,
    })


def collection_schema(name: str, vector_dim: int | None) -> dict:
    fields = [{"name": field, "type": "string", "optional": True} for field in TERM_FIELDS]
    fields += [{"name": field, "type": "string", "facet": True, "optional": True} for field in FACET_STRING_FIELDS]
    fields += [
        {"name": "year", "type": "int32", "facet": True, "optional": True},
        {"name": "seq", "type": "int64"},
        {"name": "has_abstract", "type": "bool"},
        # Per-field term counts: BM25 length normalisation on the papersift side.
        *({"name": f"{field}_len", "type": "int32", "optional": True} for field in TERM_FIELDS),
        # Terms a paper repeats: Typesense's text match ignores term frequency, so these let
        # its candidate order approach BM25's (papers that repeat the query words come first).
        *({"name": field, "type": "string", "optional": True} for field in REPEATED_TERMS),
    ]
    if vector_dim:
        fields.append({"name": "embedding", "type": "float[]", "num_dim": vector_dim, "optional": True})
    # Display fields (title, abstract, authors, url, ...) are stored, not indexed: no schema entry.
    return {"name": name, "fields": fields, "default_sorting_field": "seq", "token_separators": []}


def paper_terms(paper: Paper) -> dict[str, list[str]]:
    """The index terms of each text field, made by the analyzers the embedded index uses."""
    title = terms(clean_extraction_debris(paper.title), ENGLISH)  # the text the embedded index reads (index/debris.py)
    abstract = terms(indexed_text(paper.abstract), ENGLISH) if paper.abstract else []
    keywords = [term for keyword in paper.keywords for term in terms(keyword, ENGLISH)]
    by_field = {
        "title": title, "abstract": abstract, "keywords": keywords, "text": title + abstract + keywords,
        "authors": [term for author in paper.authors for term in terms(author, NAMES)],
    }
    return {field: by_field[name] for field, name in TERM_FIELDS.items()}


def paper_document(seq: int, paper: Paper, vector: np.ndarray | None = None) -> dict:
    document = paper.to_dict()
    document.pop("source", None)
    document["seq"] = seq
    for field, field_terms in paper_terms(paper).items():
        document[field] = " ".join(field_terms)
        document[f"{field}_len"] = len(field_terms)
    text_counts = Counter(document["text_terms"].split())
    for field, least in REPEATED_TERMS.items():
        document[field] = " ".join(term for term, count in text_counts.items() if count >= least)
    document["has_abstract"] = paper.has_abstract
    for field in FACET_STRING_FIELDS + ("year",):
        if document.get(field) is None:
            document.pop(field, None)
    if vector is not None:
        document["embedding"] = [float(x) for x in vector]
    return document


@dataclass(frozen=True, slots=True)
class ImportResult:
    collection: str
    imported: int
    total: int
    resumed_from_seq: int
    swapped: bool
    seconds: float


def list_collections(client: typesense.Client) -> list[CollectionSchema]:
    return client.collections.retrieve()


def alias_target(client: typesense.Client, alias: str = ALIAS) -> str | None:
    try:
        return client.aliases[alias].retrieve()["collection_name"]
    except typesense.exceptions.ObjectNotFound:
        return None


def highest_seq(client: typesense.Client, collection: str, timeout: float = 10.0) -> int:
    """The highest paper seq the collection holds (0 when empty). A follower that has not applied
    the latest writes can answer a search with no hits while the collection holds documents
    (seen in CI: a resumed build restarted from 0), so an empty answer is asked again while the
    collection reports any."""
    deadline = time.monotonic() + timeout
    while True:
        result = client.collections[collection].documents.search(
            {"q": "*", "query_by": "title_terms", "sort_by": "seq:desc", "per_page": 1, "include_fields": "seq"}
        )
        hits = result.get("hits") or []
        if hits:
            return int(cast("int", hits[0]["document"]["seq"]))  # an int64 field (collection_schema)
        if time.monotonic() > deadline or not client.collections[collection].retrieve()["num_documents"]:
            return 0
        time.sleep(0.2)


def _unfinished_build(client: typesense.Client, live: str | None) -> str | None:
    """The newest collection of this schema that the alias does not point at: a killed build."""
    names = sorted(
        (c["name"] for c in list_collections(client) if c["name"].startswith(COLLECTION_PREFIX) and c["name"] != live),
        reverse=True,
    )
    return names[0] if names else None


def import_documents(client: typesense.Client, collection: str, documents: list[dict]) -> None:
    """Upsert a batch as JSONL. Typesense 0.24 can answer with blank lines between its
    per-document results (seen under load), which the client's own parser rejects, so the
    raw answer is parsed here and checked to hold one result per document."""
    body = "\n".join(orjson.dumps(document).decode() for document in documents)
    answer = client.collections[collection].documents.import_(body, {"action": "upsert"})
    results = [orjson.loads(line) for line in answer.splitlines() if line.strip()]
    if len(results) != len(documents):
        raise TypesenseIndexError(f"typesense answered {len(results)} results for {len(documents)} papers")
    failures = [(doc["id"], r.get("error")) for doc, r in zip(documents, results) if not r.get("success")]
    if failures:
        paper_id, error = failures[0]
        raise TypesenseIndexError(f"{len(failures)} papers rejected by typesense; first: {paper_id}: {error}")


def _batches(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


VectorLookup = Callable[[list[Paper]], list[np.ndarray | None]]


def push_papers(client: typesense.Client, store: Store, collection: str, since_seq: int,
                vectors: VectorLookup | None = None, progress: ProgressCallback | None = None,
                batch_size: int = IMPORT_BATCH) -> int:
    """Upsert every paper with seq > since_seq, in seq order and batches; returns the count."""
    imported = 0
    for batch in _batches(store.iter_papers(since_seq), batch_size):
        papers = [paper for _, paper in batch]
        batch_vectors = vectors(papers) if vectors else [None] * len(papers)
        documents = [paper_document(seq, paper, vector) for (seq, paper), vector in zip(batch, batch_vectors)]
        import_documents(client, collection, documents)
        imported += len(documents)
        if progress:
            progress(len(documents))
    return imported


def wait_for_count(client: typesense.Client, collection: str, expected: int, timeout: float = 60.0) -> int:
    """The collection's document count once it reaches `expected` (followers apply writes a
    moment after the leader, and the client may ask any node), or the last count seen."""
    deadline = time.monotonic() + timeout
    while True:
        held = int(client.collections[collection].retrieve()["num_documents"])
        if held >= expected or time.monotonic() > deadline:
            return held
        time.sleep(0.2)


def write_meta(client: typesense.Client, collection: str, documents: int, store_count: int,
               vector_model: str | None = None) -> None:
    """Collection-wide figures the searcher needs for BM25: document count, mean field lengths;
    and which embedding model made the vectors, if the collection has them."""
    document: dict[str, str | int | float] = {"id": collection, "collection": collection, "documents": documents,
                "schema_version": SCHEMA_VERSION, "store_papers": store_count, "built_at": time.time(),
                "vector_model": vector_model or ""}
    document |= mean_field_lengths(client, collection, documents)
    _ensure_meta_collection(client)
    client.collections[META_COLLECTION].documents.upsert(document)


def mean_field_lengths(client: typesense.Client, collection: str, documents: int, timeout: float = 60.0) -> dict[str, float]:
    """Mean term count of each term field over every document, from a full export (asked
    again until the answering node holds all `documents`: followers may lag a moment)."""
    fields = [f"{field}_len" for field in TERM_FIELDS]
    deadline = time.monotonic() + timeout
    while True:
        exported = client.collections[collection].documents.export({"include_fields": ",".join(fields)})
        rows = [orjson.loads(line) for line in exported.splitlines() if line.strip()]
        if len(rows) >= documents or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    count = max(len(rows), 1)
    return {f"avg_{field}": sum(int(row.get(field, 0)) for row in rows) / count for field in fields}


def _ensure_meta_collection(client: typesense.Client) -> None:
    try:
        client.collections[META_COLLECTION].retrieve()
    except typesense.exceptions.ObjectNotFound:
        client.collections.create({
            "name": META_COLLECTION,
            "fields": [{"name": "collection", "type": "string"}],
        })


def read_meta(client: typesense.Client, collection: str) -> dict:
    # typesense types a document as a Mapping of JSON values; the meta document is ours (write_meta)
    return cast("dict", client.collections[META_COLLECTION].documents[collection].retrieve())


def build_collection(client: typesense.Client, store: Store, vectors: VectorLookup | None = None,
                     vector_dim: int | None = None, progress: ProgressCallback | None = None,
                     batch_size: int = IMPORT_BATCH, vector_model: str | None = None) -> ImportResult:
    """Full build into a new (or the unfinished) collection, then swap the alias to it."""
    started = time.monotonic()
    live = alias_target(client)
    collection = _unfinished_build(client, live)
    resumed_from = 0
    if collection is None:
        collection = f"{COLLECTION_PREFIX}{time.strftime('%Y%m%d%H%M%S')}_{time.time_ns() % 1_000_000:06d}"
        client.collections.create(cast("CollectionCreateSchema", collection_schema(collection, vector_dim)))
    else:
        resumed_from = highest_seq(client, collection)
        if progress and resumed_from:
            progress(client.collections[collection].retrieve()["num_documents"])
    imported = push_papers(client, store, collection, resumed_from, vectors, progress, batch_size)
    total = store.count()
    held = wait_for_count(client, collection, total)
    if held != total:
        raise TypesenseIndexError(f"collection {collection} holds {held} papers, the store {total}; alias not moved")
    write_meta(client, collection, held, total, vector_model)
    client.aliases.upsert(ALIAS, {"collection_name": collection})
    if live and live != collection:
        client.collections[live].delete()
    return ImportResult(collection, imported, total, resumed_from, True, time.monotonic() - started)


def update_collection(client: typesense.Client, store: Store, vectors: VectorLookup | None = None,
                      progress: ProgressCallback | None = None, vector_model: str | None = None) -> ImportResult:
    """Upsert papers changed since the live collection's highest seq (readers see each paper whole)."""
    started = time.monotonic()
    live = alias_target(client)
    if live is None:
        raise TypesenseIndexError(f"no alias {ALIAS!r} on the cluster yet: run a full build first")
    since = highest_seq(client, live)
    fields = {field["name"] for field in client.collections[live].retrieve()["fields"]}
    if "embedding" not in fields:  # a text-only collection: vectors need a full build
        vectors, vector_model = None, None
    imported = push_papers(client, store, live, since, vectors, progress)
    if imported:
        held = wait_for_count(client, live, store.count())
        write_meta(client, live, held, store.count(), vector_model)
    return ImportResult(live, imported, store.count(), since, False, time.monotonic() - started)
