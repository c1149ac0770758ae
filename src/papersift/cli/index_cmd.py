"""papersift index: the keyword index, then what is derived beside it (the term lexicon and
phrase vectors for Chinese queries, author identities)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    console,
    data_dir_of,
    err_console,
    fail,
    print_json,
    require_writable,
)
from papersift.index import lexical, phrasevectors, termlexicon, vocabulary
from papersift.store import SCHEMA_VERSION, Store


@app.command()
def index(
    data_dir: DataDirOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build from scratch instead of adding changes.")] = False,
    as_json: JsonOption = False,
    backend: Annotated[str, typer.Option("--backend", help="embedded (in the data dir) or typesense (a cluster).")] = "embedded",
    nodes: Annotated[str | None, typer.Option("--nodes", envvar="PAPERSIFT_TYPESENSE_NODES", help="typesense: host:port,...")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", envvar="PAPERSIFT_TYPESENSE_API_KEY", help="typesense: API key.")] = None,
) -> None:
    """Build or update the keyword index from the store (readers never see a half-built one)."""
    directory = data_dir_of(data_dir)
    if backend != "embedded":
        from papersift.cli.cluster_cmd import index_on_backend

        return index_on_backend(backend, directory, nodes, api_key, rebuild, as_json)
    try:
        store = Store(directory, readonly=True)
    except FileNotFoundError as exc:
        fail(str(exc))
    require_writable(directory)
    total = store.count() if rebuild or lexical.current_generation(directory) is None else None
    outdated = store.read("PRAGMA user_version")[0][0] < SCHEMA_VERSION
    store.close()
    if outdated:  # an older store is migrated first: the index reads the code links it fills in
        Store(directory).close()
    progress = Progress(TextColumn("[bold]index"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err_console, disable=as_json)
    with progress:
        task = progress.add_task("index", total=total)
        advance = lambda count: progress.advance(task, count)  # noqa: E731
        result = lexical.build(directory, advance) if rebuild else lexical.update(directory, advance)
    words = vocabulary.build_for_store(directory, force=rebuild)  # what "did you mean" corrects against
    lexicon = termlexicon.build_for_store(directory, force=rebuild)  # Chinese terms' English readings
    phrases = phrasevectors.build_for_store(directory, force=rebuild and lexicon is not None,
                                            log=lambda line: err_console.print(line, highlight=False))
    summary: dict[str, Any] = {
        "documents": result.documents, "indexed": result.added, "full_build": result.full,
        "seconds": round(result.seconds, 3), "bytes": lexical.index_size_bytes(result.folder),
        "path": str(result.folder),
        "term_lexicon": None if lexicon is None else {"phrases": lexicon.phrases, "headwords": lexicon.headwords,
                                                      "seconds": round(lexicon.seconds, 3)},
        "authors": _rebuild_identities(directory, rebuild),
        "vocabulary": None if words is None else {"words": words.words, "seconds": round(words.seconds, 3)},
        "phrase_vectors": None if phrases is None else {"phrases": phrases.phrases, "seconds": round(phrases.seconds, 3)},
    }
    if as_json:
        print_json(summary)
    else:
        kind = "built" if result.full else "updated"
        console.print(f"index {kind}: {result.documents:,} papers ({result.added:,} indexed) in "
                      f"{result.seconds:.2f} s, {summary['bytes'] / 1e6:.1f} MB", highlight=False)
        if lexicon is not None:
            console.print(f"term lexicon built: {lexicon.phrases:,} phrases, {lexicon.headwords:,} Chinese headwords "
                          f"in {lexicon.seconds:.1f} s", highlight=False)
        if phrases is not None:
            console.print(f"phrase vectors built: {phrases.phrases:,} phrases in {phrases.seconds:.1f} s", highlight=False)


def _rebuild_identities(directory, force: bool) -> dict | None:
    """Author identities and venue summaries (papersift.people) follow the store like the index:
    rebuilt when papers or submissions changed since (~11 s on the full corpus), else kept."""
    from papersift.people.identity import build, is_stale

    store = Store(directory)
    try:
        return build(store) if force or is_stale(store) else None
    finally:
        store.close()
