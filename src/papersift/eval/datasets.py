"""Readers for benchmark files in BEIR layout, with errors that name the file and line."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from papersift.record import Paper, RecordError, paper_from_dict


class BenchmarkError(ValueError):
    """A benchmark file that cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class EvalQuery:
    id: str
    text: str
    lang: str | None = None
    exclude_ids: frozenset[str] = frozenset()  # the query paper itself (query-by-example sets)


def _open_text(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def _json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise BenchmarkError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise BenchmarkError(f"{path}:{number}: expected a JSON object")
            yield number, record


def load_queries(path: str | Path, text_field: str = "text") -> list[EvalQuery]:
    path = Path(path)
    queries = []
    for number, record in _json_lines(path):
        query_id, text = record.get("_id"), record.get(text_field)
        if isinstance(text, list) and all(isinstance(part, str) for part in text):
            text = " ".join(text)  # e.g. CSFCube's facet_sentences: the query is those sentences
        if query_id is None:
            raise BenchmarkError(f"{path}:{number}: query has no '_id'")
        if not isinstance(text, str) or not text.strip():
            raise BenchmarkError(f"{path}:{number}: query {query_id} has no text in field '{text_field}'")
        excluded = {str(query_id)} | ({str(record["query_pid"])} if record.get("query_pid") else set())
        queries.append(EvalQuery(str(query_id), text, record.get("lang"), frozenset(excluded)))
    return queries


def load_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """`query-id corpus-id score` lines (tab or space separated) after a header line."""
    path = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            parts = line.split()
            if not parts:
                continue
            if number == 1 and not parts[-1].lstrip("-").isdigit():
                continue  # header
            if len(parts) != 3 or not parts[2].lstrip("-").isdigit():
                raise BenchmarkError(f"{path}:{number}: expected 'query-id corpus-id score', got {line.strip()!r:.80}")
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load_pools(path: str | Path) -> dict[str, list[str]]:
    path = Path(path)
    try:
        pools = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise BenchmarkError(f"{path}: not JSON ({exc})") from None
    if not isinstance(pools, dict) or not all(isinstance(ids, list) for ids in pools.values()):
        raise BenchmarkError(f"{path}: expected an object of query id -> list of candidate ids")
    return {str(query_id): [str(doc_id) for doc_id in ids] for query_id, ids in pools.items()}


RANKED_FIELDS = ("id", "title", "abstract", "authors", "keywords")


def read_corpus(path: str | Path) -> Iterator[Paper]:
    """BEIR documents (`_id`, `title`, `text`) or papersift records (`id`, `title`, `abstract`...).

    Only the fields ranking reads are kept (a benchmark's odd `year` must not reject a
    document), and BEIR documents are taken as they are (no 30-character abstract floor).
    """
    path = Path(path)
    for number, record in _json_lines(path):
        if "_id" in record:
            yield Paper(id=str(record["_id"]), title=record.get("title") or "", abstract=record.get("text") or None)
            continue
        try:
            yield paper_from_dict({name: record.get(name) for name in RANKED_FIELDS}, source=f"{path.name}:{number}")
        except RecordError as exc:
            raise BenchmarkError(f"{path}:{number}: {exc}") from None
