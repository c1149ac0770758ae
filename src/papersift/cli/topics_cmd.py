"""papersift topics train|evaluate|predict, papersift plot map|trends: thin wrappers over papersift.topics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, err_console, fail, print_json

topics_app = typer.Typer(help="Topic taxonomy: predicted Area · Subarea for papers without one.", no_args_is_help=True)
plot_app = typer.Typer(help="Charts of the corpus: topic map and trends.", no_args_is_help=True)
app.add_typer(topics_app, name="topics")
app.add_typer(plot_app, name="plot")

WordsOnlyOption = Annotated[bool, typer.Option(
    "--words-only", help="Use tf-idf words alone (no embeddings needed; weaker, see README).")]
EmbedMissingOption = Annotated[bool, typer.Option(
    "--embed-missing", help="Embed papers that lack a vector now (slow on CPU) instead of failing; "
                            "computes the MiniLM int8 vectors of the default model.")]


def _config(words_only: bool):
    from papersift.topics.classifier import WORDS_ONLY, ModelConfig

    return WORDS_ONLY if words_only else ModelConfig()


def _progress(disable: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
        TimeElapsedColumn(), console=err_console, disable=disable, transient=False,
    )


class _StageBars:
    """One progress bar per stage name, created on first report."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)


def _store_dir(data_dir: Path | None) -> Path:
    directory = data_dir_of(data_dir)
    if not (directory / "papers.sqlite3").exists():
        fail(f"no papers in {directory}; run 'papersift ingest' first")
    return directory


@topics_app.command("train")
def topics_train(data_dir: DataDirOption = None, words_only: WordsOnlyOption = False,
                 embed_missing: EmbedMissingOption = False, as_json: JsonOption = False) -> None:
    """Train the topic model on the papers with source labels (kept until labels or config change)."""
    from papersift.topics.files import EmbeddingsUnavailable
    from papersift.topics.predict import TopicsError, train_model

    directory = _store_dir(data_dir)
    with _progress(as_json) as progress:
        try:
            model, _ = train_model(directory, _config(words_only), compute_missing=embed_missing,
                                   progress=_StageBars(progress))
        except EmbeddingsUnavailable as exc:
            fail(f"{exc} (or pass --embed-missing, or --words-only)")
        except TopicsError as exc:
            fail(str(exc))
    report = {"model_version": model.version, "labeled_papers": model.labeled_papers,
              "embedding_model": model.embedding_model, "topics": len(model.classifier.topic_classes),
              "areas": len(model.classifier.area_classes)}
    if as_json:
        print_json(report)
    else:
        console.print(f"topic model {model.version}: {report['labeled_papers']:,} labeled papers, "
                      f"{report['areas']} areas, {report['topics']} topics", highlight=False)


@topics_app.command("evaluate")
def topics_evaluate(
    data_dir: DataDirOption = None,
    folds: Annotated[int, typer.Option("--folds", min=2, max=20, help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the fold split.")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", min=20, help="Evaluate on the first N labeled papers only.")] = None,
    words_only: WordsOnlyOption = False,
    views: Annotated[str | None, typer.Option(
        "--views", help="Evaluate another model: comma-separated view[:learner[:C]] averaged, e.g. "
                        "'combined_all:lr:30,minilm:lda,lsa:lda' (the default) or 'embed:lda'.")] = None,
    embed_missing: EmbedMissingOption = False,
    report_dir: Annotated[Path | None, typer.Option("--report-dir", help="Also write report.json + report.md here.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Cross-validated area / subarea top-1 and top-3 accuracy, with majority and tf-idf baselines."""
    from papersift.store import Store
    from papersift.topics.dataset import load_labeled
    from papersift.topics.evaluate import cross_validate, report_markdown
    from papersift.topics.files import EmbeddingsUnavailable
    from papersift.topics.predict import embedding_label, source_embeddings, unlabeled_corpus

    config = _config(words_only)
    if views is not None:
        from papersift.topics.classifier import ModelConfig, ViewSpec
        from papersift.topics.features import VIEWS

        try:
            specs = tuple(ViewSpec.parse(part) for part in views.split(","))
        except ValueError as exc:
            fail(f"--views: {exc}")
        unknown = [spec.view for spec in specs if spec.view not in VIEWS]
        if unknown:
            fail(f"--views: unknown view {', '.join(unknown)} (known: {', '.join(VIEWS)})")
        config = ModelConfig(views=specs)
    directory = _store_dir(data_dir)
    store = Store(directory, readonly=True)
    labeled = load_labeled(store)
    corpus = unlabeled_corpus(store) if config.needs_corpus else None
    store.close()
    if limit is not None:
        labeled = labeled.subset(range(min(limit, len(labeled))))
    if len(labeled) < folds * 2:
        fail(f"only {len(labeled)} labeled papers (with an area and an abstract) in {directory}: too few for {folds} folds")
    with _progress(as_json) as progress:
        bars = _StageBars(progress)
        try:
            embeddings = source_embeddings(directory, labeled.papers, config.embedding_sources, embed_missing,
                                           bars, "embed labeled")
        except EmbeddingsUnavailable as exc:
            fail(f"{exc} (or pass --embed-missing, or --words-only)")
        try:
            report = cross_validate(labeled, embeddings, config, folds=folds, seed=seed, corpus=corpus,
                                    progress=lambda done, total: bars("folds", done, total))
        except ValueError as exc:  # a view that cannot run here (e.g. lsa on a tiny corpus)
            fail(str(exc))
    report["embedding_model"] = embedding_label(config.embedding_sources)
    if report_dir is not None:
        import orjson

        report_dir.mkdir(parents=True, exist_ok=True)
        (report_dir / "report.json").write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
        (report_dir / "report.md").write_text(report_markdown(report))
    if as_json:
        print_json(report)
    else:
        console.print(report_markdown(report), highlight=False, markup=False)


@topics_app.command("predict")
def topics_predict(
    data_dir: DataDirOption = None,
    force: Annotated[bool, typer.Option("--force", help="Recompute every prediction.")] = False,
    words_only: WordsOnlyOption = False,
    embed_missing: EmbedMissingOption = False,
    as_json: JsonOption = False,
) -> None:
    """Predict Area · Subarea for every paper without a source label (only what changed since last time)."""
    from papersift.topics.files import EmbeddingsUnavailable
    from papersift.topics.predict import TopicsError, predict_all

    directory = _store_dir(data_dir)
    with _progress(as_json) as progress:
        try:
            summary = predict_all(directory, _config(words_only), force=force, compute_missing=embed_missing,
                                  progress=_StageBars(progress))
        except EmbeddingsUnavailable as exc:
            fail(f"{exc} (or pass --embed-missing, or --words-only)")
        except TopicsError as exc:
            fail(str(exc))
        reindexed = _reindex_topics(directory, progress)
    if as_json:
        print_json({**vars(summary), "reindexed": reindexed})
        return
    console.print(f"{summary.mode}: {summary.predicted:,} papers predicted in {summary.seconds:.1f} s; "
                  f"{summary.stored_total:,} predictions stored (model {summary.model_version})", highlight=False)
    if reindexed is not None:
        console.print(f"keyword index: {reindexed:,} papers re-indexed with their new topics", highlight=False)


def _reindex_topics(directory: Path, progress: Progress) -> int | None:
    """Bring the keyword index (if there is one) up to the predictions: filters and facets use them."""
    from papersift.index import lexical

    if lexical.current_generation(directory) is None:
        return None
    task = progress.add_task("index", total=None)
    return lexical.update(directory, lambda count: progress.advance(task, count)).added


@topics_app.command("map")
def topics_map(
    data_dir: DataDirOption = None,
    method: Annotated[list[str] | None, typer.Option(
        "--method", help="pca (seconds) and/or umap (minutes, ~2 GB on 34K papers); repeatable. Default: both, "
                         "PCA first (umap skipped with a note when umap-learn is missing).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Compute what the topic map page shows: the 2-D projection(s) of the paper vectors and the
    trends chart (the server never computes them; it answers 409 naming this command until they exist)."""
    import time

    from papersift.topics.files import EmbeddingsUnavailable
    from papersift.topics.plots import store_topic_trends
    from papersift.topics.projection import METHODS, ProjectionError, map_points

    directory = _store_dir(data_dir)
    wanted = method or list(METHODS)
    unknown = [name for name in wanted if name not in METHODS]
    if unknown:
        fail(f"unknown --method {unknown[0]!r} (known: {', '.join(METHODS)})")
    results = []
    for name in dict.fromkeys(wanted):
        started = time.perf_counter()
        try:
            points = map_points(directory, name)
        except EmbeddingsUnavailable as exc:
            fail(str(exc))
        except ProjectionError as exc:
            if method:  # asked for by name: an error; by default: a note
                fail(str(exc))
            err_console.print(f"note: {exc}; the map page shows PCA", highlight=False)
            continue
        results.append({"method": name, "points": len(points.paper_ids), "seconds": round(time.perf_counter() - started, 1)})
        if not as_json:
            console.print(f"topic map ({name}): {len(points.paper_ids):,} papers in {results[-1]['seconds']} s",
                          highlight=False)
    started = time.perf_counter()
    trends = store_topic_trends(directory)
    if not as_json:
        console.print(f"trends chart: {trends['papers']:,} papers in {time.perf_counter() - started:.1f} s", highlight=False)
    if as_json:
        print_json({"maps": results, "trends_papers": trends["papers"]})


@plot_app.command("map")
def plot_map(
    output: Annotated[Path, typer.Option("--output", "-o", help="PNG (or SVG) file to write.")] = Path("topic-map.png"),
    data_dir: DataDirOption = None,
    method: Annotated[str, typer.Option(
        "--method", help="Projection: umap (minutes, cached for the page), pca (seconds), or auto (umap if cached).")] = "auto",
    as_json: JsonOption = False,
) -> None:
    """2-D projection of the paper embeddings, colored by area (source label, else predicted)."""
    from papersift.topics.files import EmbeddingsUnavailable
    from papersift.topics.plots import plot_topic_map
    from papersift.topics.projection import ProjectionError

    directory = _store_dir(data_dir)
    try:
        summary = plot_topic_map(directory, output, method=method)
    except (EmbeddingsUnavailable, ProjectionError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        print_json(summary)
    else:
        console.print(f"wrote {output} ({summary['points']:,} papers, {summary['method']})", highlight=False)


@plot_app.command("trends")
def plot_trends(
    output: Annotated[Path, typer.Option("--output", "-o", help="PNG or SVG file to write.")] = Path("topic-trends.png"),
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Papers per area per year, and per venue (source labels, else predicted topics)."""
    from papersift.topics.plots import plot_topic_trends

    directory = _store_dir(data_dir)
    try:
        summary = plot_topic_trends(directory, output)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json(summary)
    else:
        console.print(f"wrote {output} ({summary['papers']:,} papers, {len(summary['areas'])} areas)", highlight=False)
