"""papersift rank train: the learned ranker, trained on the corpus's own pseudo-queries (docs/search.md)."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, fail, require_writable

rank_app = typer.Typer(help="The learned ranker over every retriever's signals (search/ranker.py).",
                       no_args_is_help=True)
app.add_typer(rank_app, name="rank")


@rank_app.command("train")
def rank_train(
    data_dir: DataDirOption = None,
    queries: Annotated[int, typer.Option("--queries", min=50, help="Pseudo-queries drawn from the corpus.")] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the draw and of the learner.")] = 1,
    activate: Annotated[bool, typer.Option(
        "--activate/--no-activate", help="Whether hybrid search uses the model. Off by default: the measured model "
                                         "does not beat the fusion (docs/experiments/2026-12-01-learned-ranker.md).")] = False,
    as_json: JsonOption = False,
) -> None:
    """Train a LightGBM lambdarank model on pseudo-queries from the data dir's papers (titles, abstract
    sentences, key terms, authors, glossary terms) and write it to D/ranker/; hybrid search uses it with --activate."""
    from papersift.extras import require

    require("rank", "papersift rank train")
    from papersift.search.hybrid import HybridRetriever, make_retriever
    from papersift.search.rank_train import train
    from papersift.search.service import SearchService

    directory = data_dir_of(data_dir)
    require_writable(directory)
    service = SearchService(directory)
    retriever = make_retriever(directory, service)
    if not isinstance(retriever, HybridRetriever) or getattr(retriever.dense, "index", None) is None:
        fail(f"no vectors in {directory}: hybrid search, which the ranker re-orders, needs `papersift embed` first")
    progress = Progress(TextColumn("[bold]rank train"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, disable=as_json)
    try:
        with progress:
            task = progress.add_task("queries", total=queries)
            report = train(directory, retriever, service.backend, queries, seed, activate=activate,
                           progress=lambda count: progress.advance(task, count))
    except ValueError as error:
        fail(str(error))
    if as_json:
        console.print_json(orjson.dumps(report.to_dict()).decode())
        return
    console.print(f"trained on {sum(report.queries.values())} queries ({report.dropped} dropped: answer not among "
                  f"the candidates), {report.rounds} rounds, {report.seconds:.0f} s")
    for name, figures in report.held_back.items():
        console.print(f"held-back MRR@10 {name}: " + ", ".join(f"{kind} {value:.3f}" for kind, value in figures.items()))
