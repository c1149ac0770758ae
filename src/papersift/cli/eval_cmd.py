"""papersift eval: retrieval quality on a BEIR-layout benchmark (the interface other tools call)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, err_console, fail, print_json
from papersift.eval.datasets import BenchmarkError, load_pools, load_qrels, load_queries


@app.command(name="eval")
def eval_command(
    queries: Annotated[Path, typer.Option("--queries", help="Queries JSONL (_id and a text field, optional lang).")],
    qrels: Annotated[Path, typer.Option("--qrels", help="Qrels TSV: query-id corpus-id score, with a header.")],
    corpus: Annotated[Path | None, typer.Option(
        "--corpus", help="Corpus JSONL[.gz] (BEIR _id/title/text or papersift records); indexed once per content hash.")] = None,
    pools: Annotated[Path | None, typer.Option("--pools", help="JSON: query id -> candidate ids; rank only each query's pool.")] = None,
    query_field: Annotated[str, typer.Option("--query-field", help="Field of the query records holding the text.")] = "text",
    mode: Annotated[str, typer.Option("--mode", help="keyword, semantic or hybrid.")] = "keyword",
    like: Annotated[bool, typer.Option(
        "--like", help="Rank each query text as pasted text, the similar-papers method (semantic or hybrid).")] = False,
    like_paper: Annotated[bool, typer.Option(
        "--like-paper", help="The query field holds a paper id: rank that stored paper's similar papers (semantic or hybrid).")] = False,
    cache_dir: Annotated[Path | None, typer.Option(
        "--cache-dir", help="Where --corpus indexes are kept (default ~/.cache/papersift/eval, or $PAPERSIFT_CACHE_DIR).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """MRR@10, Recall@10/100, nDCG@10/20 overall and per query language."""
    from papersift.eval.runner import corpus_data_dir, evaluate, markdown_table
    from papersift.search.service import SearchService
    from papersift.search.types import is_mode

    if not is_mode(mode):
        fail(f"--mode must be keyword, semantic or hybrid, not '{mode}'")
    if like and like_paper:
        fail("--like and --like-paper: choose one")
    if (like or like_paper) and mode == "keyword":
        fail(f"{'--like' if like else '--like-paper'} ranks similar papers with vectors: use it with --mode semantic or hybrid")
    for option, path in (("--queries", queries), ("--qrels", qrels), ("--corpus", corpus), ("--pools", pools)):
        if path is not None and not path.is_file():
            fail(f"{option}: no such file: {path}")
    try:
        query_list = load_queries(queries, query_field)
        judgments = load_qrels(qrels)
        candidate_pools = load_pools(pools) if pools else None
        directory = corpus_data_dir(corpus, cache_dir) if corpus else data_dir_of(data_dir)
        service = SearchService(directory)
    except (BenchmarkError, FileNotFoundError) as exc:
        fail(str(exc))
    judged = sum(query.id in judgments for query in query_list)
    progress = Progress(TextColumn("[bold]eval"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err_console, disable=as_json)
    try:
        with progress:
            task = progress.add_task("eval", total=judged)
            result = evaluate(service, query_list, judgments, mode, candidate_pools,
                              progress=lambda count: progress.advance(task, count),
                              like="text" if like else "paper" if like_paper else None)
    except RuntimeError as exc:  # the mode has no retriever in this data dir
        fail(str(exc))
    if as_json:
        print_json(result.to_dict())
    else:
        console.print(markdown_table(result), highlight=False)
