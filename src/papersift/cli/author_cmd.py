"""papersift authors build|evaluate, papersift author NAME: thin wrappers over papersift.people."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, fail, print_json, require_writable
from papersift.store import SCHEMA_VERSION, Store

authors_app = typer.Typer(help="Author identities: who is who across spellings and namesakes.", no_args_is_help=True)
app.add_typer(authors_app, name="authors")


def people_store(data_dir: Path | None, readonly: bool = True) -> Store:
    directory = data_dir_of(data_dir)
    try:
        store = Store(directory, readonly=readonly)
    except FileNotFoundError as exc:
        fail(str(exc))
    version = store.read("PRAGMA user_version")[0][0]
    if version < SCHEMA_VERSION:
        fail(f"the store in {directory} is at schema version {version}; run 'papersift authors build' "
             f"(or any ingest) once to upgrade it to {SCHEMA_VERSION}")
    return store


@authors_app.command("build")
def authors_build(data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Assign every author mention its identity (run after ingest; upgrades an older store)."""
    from papersift.people.identity import build

    directory = data_dir_of(data_dir)
    require_writable(directory)
    summary = build(people_store(data_dir, readonly=False))
    if as_json:
        print_json(summary)
    else:
        console.print(f"{summary['mentions']:,} author mentions -> {summary['authors']:,} authors "
                      f"({summary['with_openreview_id']:,} with an OpenReview id)", highlight=False)


@authors_app.command("evaluate")
def authors_evaluate(data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Pairwise precision / recall / F1 of 'same author' against OpenReview ids: exact names vs the rule."""
    from papersift.people.identity import evaluate, load_mentions

    report = evaluate(load_mentions(people_store(data_dir)))
    if as_json:
        print_json(report)
        return
    console.print(f"{report['scored_mentions']:,} mentions with an OpenReview id ({report['scored_people']:,} people) "
                  f"of {report['mentions']:,}", highlight=False)
    console.print(f"{'method':<12}{'ids':>6}{'precision':>11}{'recall':>9}{'F1':>8}", highlight=False)
    for method in ("exact_name", "rule"):
        for half in (None, "dev", "test"):
            scores = report[method][half] if half else report[method]
            console.print(f"{method:<12}{half or 'all':>6}{scores['precision']:>11.4f}{scores['recall']:>9.4f}"
                          f"{scores['f1']:>8.4f}", highlight=False)


@app.command()
def author(
    name: Annotated[str, typer.Argument(help="A name ('Zico Kolter'), an OpenReview id or an author id.")],
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """An author's papers by year, venues, co-authors, areas and first/last-author share."""
    from papersift.people.profiles import AuthorNotFound, author_profile

    try:
        profile = author_profile(people_store(data_dir), name)
    except AuthorNotFound as exc:
        fail(str(exc))
    if as_json:
        print_json(profile)
        return
    console.print(f"[bold]{profile['name']}[/]  {profile['id'] or ''}  {profile['paper_count']} papers, "
                  f"first author {profile['first_author_share']:.0%}, last author {profile['last_author_share']:.0%}",
                  highlight=False)
    if len(profile["spellings"]) > 1:
        console.print("also written: " + ", ".join(s["name"] for s in profile["spellings"][1:]), highlight=False)
    if profile["namesakes"]:
        console.print("namesakes: " + ", ".join(f"{n['id']} ({n['papers']})" for n in profile["namesakes"]),
                      highlight=False)
    console.print("by year: " + ", ".join(f"{y} {n}" for y, n in profile["papers_by_year"].items()), highlight=False)
    console.print("venues: " + ", ".join(f"{v['venue']} {v['papers']}" for v in profile["venues"]), highlight=False)
    console.print("co-authors: " + ", ".join(f"{c['name']} ({c['papers']})" for c in profile["coauthors"][:10]),
                  highlight=False)
    if profile["affiliations"]:
        console.print("affiliations: " + "; ".join(a["affiliation"] for a in profile["affiliations"][:3]),
                      highlight=False)
    for paper in profile["papers"]:
        cited = f"  cited {paper['citations']:,} (as of {paper['citations_as_of']})" if paper["citations"] is not None else ""
        console.print(f"  {paper['year']} {paper['venue']}  {paper['title']}{cited}", highlight=False, markup=False)
