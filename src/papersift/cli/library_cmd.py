"""papersift library ...: tag papers, like them or mark them not interested, keep notes and a
reading state, list, export and import the library (thin wrappers over papersift.library)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    UserOption,
    app,
    console,
    err_console,
    fail,
    print_json,
    store_dir_of,
    user_id_of,
)
from papersift.library.entries import RATINGS, Library, LibraryError

library_app = typer.Typer(help="Your library: tags, like / not interested, notes, reading state; export and import.",
                          no_args_is_help=True)
app.add_typer(library_app, name="library")

PaperIdsArgument = Annotated[list[str], typer.Argument(help="Paper ids (as `papersift search --json` gives them).")]
FORMAT_HELP = "bibtex, ris, csl-json or json"


def _open(data_dir: Path | None, user: str | None) -> Library:
    """The library of `--user` (default: the local user) in the data dir."""
    directory = store_dir_of(data_dir)
    return Library.open(directory, user_id=user_id_of(directory, user))


def _done(as_json: bool, message: str, **result) -> None:
    if as_json:
        print_json({"ok": True, **result})
    else:
        console.print(message, highlight=False, markup=False)


def _run(call):
    try:
        return call()
    except LibraryError as problem:
        fail(str(problem))


@library_app.command("tag")
def tag(tag_name: Annotated[str, typer.Argument(metavar="TAG", help="The tag.")], paper_ids: PaperIdsArgument,
        user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Tag papers (adding them to the library)."""
    added = _run(lambda: _open(data_dir, user).tag(paper_ids, tag_name))
    _done(as_json, f"tagged {added} paper(s) {tag_name!r}", tagged=added)


@library_app.command("untag")
def untag(tag_name: Annotated[str, typer.Argument(metavar="TAG", help="The tag.")], paper_ids: PaperIdsArgument,
          user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Remove a tag from papers (they stay in the library)."""
    removed = _run(lambda: _open(data_dir, user).untag(paper_ids, tag_name))
    _done(as_json, f"untagged {removed} paper(s)", untagged=removed)


@library_app.command("like")
def like(paper_ids: PaperIdsArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Like papers (+): recommendations learn from them."""
    _run(lambda: _open(data_dir, user).rate(paper_ids, RATINGS["like"]))
    _done(as_json, f"liked {len(paper_ids)} paper(s)", rating="like", papers=len(paper_ids))


@library_app.command("dislike")
def dislike(paper_ids: PaperIdsArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Mark papers "not interested" (-): recommendations learn to avoid their like."""
    _run(lambda: _open(data_dir, user).rate(paper_ids, RATINGS["dislike"]))
    _done(as_json, f"marked {len(paper_ids)} paper(s) not interested", rating="dislike", papers=len(paper_ids))


@library_app.command("unmark")
def unmark(paper_ids: PaperIdsArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Clear the like / not-interested mark of papers."""
    _run(lambda: _open(data_dir, user).rate(paper_ids, RATINGS["none"]))
    _done(as_json, f"cleared the mark of {len(paper_ids)} paper(s)", rating="none", papers=len(paper_ids))


@library_app.command("note")
def note(paper_id: Annotated[str, typer.Argument(help="Paper id.")],
         text: Annotated[str, typer.Argument(help="The note; '-' reads it from stdin, '' removes it.")],
         user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Set (replace) or remove a paper's note."""
    text = sys.stdin.read() if text == "-" else text
    _run(lambda: _open(data_dir, user).set_note(paper_id, text))
    _done(as_json, "note stored" if text.strip() else "note removed", paper_id=paper_id)


@library_app.command("state")
def state(reading: Annotated[str, typer.Argument(metavar="STATE", help="to-read, read or none.")],
          paper_ids: PaperIdsArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Set the reading state of papers."""
    _run(lambda: _open(data_dir, user).set_reading(paper_ids, reading))
    _done(as_json, f"{len(paper_ids)} paper(s): {reading}", state=reading, papers=len(paper_ids))


@library_app.command("remove")
def remove(paper_ids: PaperIdsArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Drop papers from the library with their tags, mark and note."""
    removed = _run(lambda: _open(data_dir, user).remove(paper_ids))
    _done(as_json, f"removed {removed} paper(s)", removed=removed)


@library_app.command("list")
def list_entries(
    tag_name: Annotated[str | None, typer.Option("--tag", help="Only papers with this tag.")] = None,
    liked: Annotated[bool, typer.Option("--liked", help="Only liked papers.")] = False,
    disliked: Annotated[bool, typer.Option("--disliked", help="Only papers marked not interested.")] = False,
    reading: Annotated[str | None, typer.Option("--state", help="Only papers in this reading state.")] = None,
    user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False,
) -> None:
    """The library's papers (newest first) with their tags, marks, state and notes; the tag counts."""
    library = _open(data_dir, user)
    rating = RATINGS["like"] if liked else RATINGS["dislike"] if disliked else None
    entries = _run(lambda: library.entries(tag=tag_name, rating=rating, reading=reading))
    papers = library.store.get_many([entry.paper_id for entry in entries])
    if as_json:
        print_json({"tags": library.tags(), "entries": [
            {**entry.to_dict(), "title": getattr(papers.get(entry.paper_id), "title", None)} for entry in entries]})
        return
    marks = {1: "+", -1: "-", 0: " "}
    for entry in entries:
        paper = papers.get(entry.paper_id)
        title = paper.title if paper else "(paper missing from the store)"
        extras = [f"[{', '.join(entry.tags)}]" if entry.tags else "", entry.reading or ""]
        console.print(f"{marks[entry.rating]} {entry.paper_id}  {title}  {' '.join(part for part in extras if part)}",
                      highlight=False, markup=False)
        if entry.note:
            console.print(f"    note: {entry.note}", highlight=False, markup=False)
    counts = ", ".join(f"{name} ({count})" for name, count in library.tags().items())
    err_console.print(f"[dim]{len(entries)} paper(s); tags: {counts or 'none'}[/]")


@library_app.command("export")
def export(
    export_format: Annotated[str, typer.Option("--format", help=FORMAT_HELP)] = "bibtex",
    tag_name: Annotated[str | None, typer.Option("--tag", help="Only papers with this tag.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    user: UserOption = None, data_dir: DataDirOption = None,
) -> None:
    """The whole library (or one tag) as BibTeX, RIS, CSL-JSON or JSON, with tags and notes."""
    from papersift.library.interchange import FORMATS, export_library

    if export_format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {export_format!r}")
    text = _run(lambda: export_library(_open(data_dir, user), export_format, tag_name))
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        output.write_text(text, encoding="utf-8")
        err_console.print(f"[dim]wrote {output}[/]")


@library_app.command("import")
def import_file(
    path: Annotated[Path, typer.Argument(help="BibTeX, RIS, CSL-JSON (a Zotero export) or a papersift library JSON.")],
    import_format: Annotated[str | None, typer.Option("--format", help=f"{FORMAT_HELP} (default: from the file).")] = None,
    tag_name: Annotated[str | None, typer.Option("--tag", help="Also tag every matched paper with this.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Match and report, store nothing.")] = False,
    user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False,
) -> None:
    """Match each entry to a stored paper (paper id, DOI / arXiv / OpenReview forum in links, then
    title + year) and merge the matched ones into the library; each miss is one line on stderr."""
    from papersift.library.interchange import FORMATS, ImportBudget, LibraryFormatError, import_library

    if import_format is not None and import_format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {import_format!r}")
    if not path.is_file():
        fail(f"{path}: no such file")
    try:
        text = _read_import(path, ImportBudget("the file", max_bytes=None))
        summary = import_library(_open(data_dir, user), text, import_format, filename=path.name, tag=tag_name, dry_run=dry_run)
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text")
    except (LibraryFormatError, LibraryError) as problem:
        fail(f"{path}: {problem}")
    for line in summary.unmatched:
        err_console.print(f"{path}: {line}", highlight=False, markup=False, soft_wrap=True)
    if as_json:
        print_json(summary.to_dict())
    else:
        verb = "would merge" if dry_run else "merged"
        console.print(f"{summary.entries} entries ({summary.format}): {summary.matched} matched and {verb}, "
                      f"{len(summary.unmatched)} not matched", highlight=False, markup=False)


def _read_import(path: Path, budget) -> str:
    """The file's text, read by the MB: one over the import's entry bound is refused before it
    is parsed (a 50 MB BibTeX used to be parsed for minutes first)."""
    parts = []
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            budget.feed(chunk)
            parts.append(chunk)
    return b"".join(parts).decode("utf-8-sig")


@library_app.command("features")
def features(data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Compute the tf-idf keyword features recommendations learn from (a derived file in the data
    dir, library-features/; ~40 s for 44,693 papers). Run it again after ingesting papers."""
    from papersift.cli.app import require_writable
    from papersift.extras import require
    from papersift.library.features import build_features

    require("recommend", "library features")
    directory = store_dir_of(data_dir)
    require_writable(directory)
    meta = build_features(directory)
    _done(as_json, f"tf-idf features of {meta['papers']:,} papers ({meta['features']:,} terms) in {meta['seconds']} s",
          **meta)


@app.command("recommend")
def recommend(
    tag_name: Annotated[str | None, typer.Option("--tag", help="Learn from this tag (default: every tagged or liked paper).")] = None,
    k: Annotated[int, typer.Option("-k", "--k", min=1, max=200, help="How many papers.")] = 20,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Only papers of this venue (repeatable).")] = None,
    year: Annotated[str | None, typer.Option("--year", help="Year or range: 2020, 2020..2024, 2020.., ..2019.")] = None,
    area: Annotated[list[str] | None, typer.Option("--area", help="Only papers of this area (repeatable).")] = None,
    user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False,
) -> None:
    """Papers like those of a tag (or of the whole library), learned from your tags and likes
    against the papers you marked not interested; each one explained by its nearest tagged papers."""
    from papersift.extras import require
    from papersift.library.features import FeaturesMissing, load_features
    from papersift.library.recommend import NothingToLearn, explanation
    from papersift.library.recommend import recommend as recommend_papers
    from papersift.library.search_filter import filtered_paper_ids
    from papersift.search.query import parse_query
    from papersift.search.tantivy_backend import TantivyBackend
    from papersift.search.types import Filters, QuerySyntaxError

    require("recommend", "recommend")
    library = _open(data_dir, user)
    try:  # the filters of `papersift search`, read and applied by the search's own code
        year_filter = parse_query(f"year:{year}").filters if year else Filters()
    except QuerySyntaxError as problem:
        fail(f"--year: {problem.problem}")
    filters = Filters(venues=tuple(venue or ()), areas=tuple(area or ()), year_from=year_filter.year_from,
                      year_to=year_filter.year_to)
    try:
        allowed = None if filters.is_empty() else filtered_paper_ids(TantivyBackend(library.store.data_dir), filters)
        hits, learned = recommend_papers(load_features(library.store.data_dir), library, tag_name, k, allowed)
    except (FeaturesMissing, NothingToLearn, LibraryError, FileNotFoundError) as problem:
        fail(str(problem))
    papers = library.store.get_many([hit.paper_id for hit in hits] + [pid for hit in hits for pid, _ in hit.because])
    if as_json:
        print_json({"learned_from": learned, "hits": [
            {"paper_id": hit.paper_id, "title": papers[hit.paper_id].title if hit.paper_id in papers else None,
             "score": round(hit.score, 4), "because": [{"paper_id": pid, "similarity": round(sim, 4)} for pid, sim in hit.because]}
            for hit in hits]})
        return
    for number, hit in enumerate(hits, 1):
        paper = papers.get(hit.paper_id)
        console.print(f"{number:>3}. {hit.paper_id}  {paper.title if paper else ''}", highlight=False, markup=False)
        because = explanation([papers[pid].title for pid, _ in hit.because if pid in papers], tag_name)
        console.print(f"     {because}", highlight=False, markup=False)
    err_console.print(f"[dim]learned from {learned['positives']} paper(s), {learned['not_interested']} not interested[/]")
