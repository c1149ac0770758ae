"""papersift saved ...: save a search with a name, list, rename, delete it, show what is new
in it (show [--new]) and mark it seen (seen); papersift feeds token: the private feed token (thin wrappers over
papersift.follow)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    UserOption,
    app,
    console,
    fail,
    print_json,
    store_dir_of,
    user_id_of,
)
from papersift.follow.saved import FollowError, SavedQuery
from papersift.follow.state import Following

saved_app = typer.Typer(help="Saved searches: save, list, rename, delete; what is new in them.", no_args_is_help=True)
app.add_typer(saved_app, name="saved")
token_app = typer.Typer(help="The token in your private feed URLs: show, create (replacing the old one), revoke.",
                        no_args_is_help=True)
app.add_typer(token_app, name="feed-token")

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="The saved search's name (or its id).")]


def open_following(data_dir: Path | None, user: str | None = None) -> Following:
    """The saved searches, marks, settings and feed token of `--user` (default: the local user)."""
    directory = store_dir_of(data_dir)
    return Following.open(directory, user_id=user_id_of(directory, user))


def _run(call):
    try:
        return call()
    except FollowError as problem:
        fail(str(problem))


def _say(as_json: bool, message: str, result: dict) -> None:
    if as_json:
        print_json(result)
    else:
        console.print(message, highlight=False, markup=False)


@saved_app.command("add")
def add(name: Annotated[str, typer.Argument(metavar="NAME", help="A name for the search.")],
        query: Annotated[str, typer.Argument(help="The query, as typed in the search box ('' for filters only).")] = "",
        mode: Annotated[str, typer.Option(help="hybrid, keyword or semantic.")] = "hybrid",
        sort: Annotated[str, typer.Option(help="relevance, newest, oldest or cited.")] = "relevance",
        venue: Annotated[list[str] | None, typer.Option(help="Only this venue (repeatable).")] = None,
        area: Annotated[list[str] | None, typer.Option(help="Only this area (repeatable).")] = None,
        author: Annotated[list[str] | None, typer.Option(help="Only papers by this author (repeatable).")] = None,
        status: Annotated[list[str] | None, typer.Option(help="Only this status (repeatable).")] = None,
        year_from: Annotated[int | None, typer.Option(help="Earliest year.")] = None,
        year_to: Annotated[int | None, typer.Option(help="Latest year.")] = None,
        user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Save a search; it starts with nothing new (papers arriving later are new)."""
    def save():
        saved_query = SavedQuery.from_dict({"q": query, "mode": mode, "sort": sort, "venue": venue or [],
                                            "area": area or [], "author": author or [], "status": status or [],
                                            "year_from": year_from, "year_to": year_to})
        return open_following(data_dir, user).save_search(name, saved_query)

    saved = _run(save)
    _say(as_json, f"saved search {saved.id}: {saved.name!r}", saved.to_dict())


@saved_app.command("list")
def list_saved(user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """The saved searches, by name."""
    searches = open_following(data_dir, user).saved_searches()
    if as_json:
        print_json({"saved_searches": [saved.to_dict() for saved in searches]})
        return
    if not searches:
        console.print("no saved searches: papersift saved add NAME QUERY", highlight=False, markup=False)
    for saved in searches:
        console.print(f"{saved.id:>4}  {saved.name}  ?{saved.query.query_string()}", highlight=False, markup=False)


@saved_app.command("rename")
def rename(name: NameArgument, new_name: Annotated[str, typer.Argument(metavar="NEW_NAME")],
           user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Rename a saved search."""
    saved = _run(lambda: open_following(data_dir, user).rename_search(name, new_name))
    _say(as_json, f"renamed saved search {saved.id} to {saved.name!r}", saved.to_dict())


@saved_app.command("delete")
def delete(name: NameArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Delete a saved search (and what it remembers having shown)."""
    saved = _run(lambda: open_following(data_dir, user).delete_search(name))
    _say(as_json, f"deleted saved search {saved.id}: {saved.name!r}", {"deleted": saved.to_dict()})


@saved_app.command("show")
def show(name: NameArgument, new: Annotated[bool, typer.Option("--new", help="Only the papers new since 'seen'.")] = False,
         user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """The saved search's papers (its first 100), the new ones marked with *."""
    listing = _listing(data_dir, user, name)
    papers = listing.new_papers if new else listing.papers
    if as_json:
        print_json({"watch": listing.watch, "name": listing.title, "new": len(listing.new_ids), "problem": listing.problem,
                    "papers": [{"id": paper.id, "title": paper.title, "venue": paper.venue, "year": paper.year,
                                "new": paper.id in listing.new_ids} for paper in papers]})
        return
    for paper in papers:
        mark = "*" if paper.id in listing.new_ids else " "
        console.print(f"{mark} {paper.id}  {paper.title} ({paper.venue or ''} {paper.year or ''})".rstrip(),
                      highlight=False, markup=False)
    console.print(f"{len(listing.new_ids)} new of {len(listing.papers)}", highlight=False, markup=False)


@saved_app.command("seen")
def seen(name: NameArgument, user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Mark what the saved search lists now as seen (its papers stop being new)."""
    from papersift.follow.watches import mark_listing_seen

    listing = _listing(data_dir, user, name)
    _run(lambda: mark_listing_seen(open_following(data_dir, user), listing))
    _say(as_json, f"marked {len(listing.papers)} papers seen ({len(listing.new_ids)} were new)",
         {"watch": listing.watch, "marked": len(listing.papers), "were_new": len(listing.new_ids)})


def _listing(data_dir: Path | None, user: str | None, name: str):
    from papersift.follow.watches import list_watch
    from papersift.index.lexical import IndexMissingError
    from papersift.search.service import SearchService

    following = open_following(data_dir, user)
    saved = _run(lambda: following.saved_search(name))
    try:
        return list_watch(SearchService(following.store.data_dir), following, f"saved:{saved.id}")
    except IndexMissingError as problem:
        fail(str(problem))


@token_app.command("show")
def token_show(user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Print the current feed token (none until `create`)."""
    token = open_following(data_dir, user).feed_token()
    _say(as_json, token or "no feed token: papersift feed-token create", {"token": token})


@token_app.command("create")
def token_create(user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Make a new token; feed URLs with the old one stop working."""
    token = _run(lambda: open_following(data_dir, user).new_feed_token())
    _say(as_json, token, {"token": token})


@token_app.command("revoke")
def token_revoke(user: UserOption = None, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Revoke the token: every private feed URL answers 404 until a new one is made."""
    revoked = _run(lambda: open_following(data_dir, user).revoke_feed_token())
    _say(as_json, "feed token revoked" if revoked else "there was no feed token", {"revoked": revoked})
