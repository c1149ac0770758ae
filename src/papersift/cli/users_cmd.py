"""papersift users ...: the accounts of a shared server (`serve --accounts`, docs/accounts.md):
add a user, invite one (a sign-up link), reset a password (a link), list, remove. Thin wrappers over papersift.accounts."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.app import DataDirOption, JsonOption, app, console, fail, print_json, store_dir_of

users_app = typer.Typer(help="Accounts of a server run with --accounts: add, invite, reset, list, remove.", no_args_is_help=True)
app.add_typer(users_app, name="users")

UserArgument = Annotated[str, typer.Argument(metavar="NAME", help="The user name (1-64 letters, digits, '.', '_', '-').")]


def open_accounts(data_dir: Path | None):
    from papersift import extras
    from papersift.accounts.users import Accounts

    directory = store_dir_of(data_dir)
    if not extras.available("accounts"):
        from rich.markup import escape

        fail(escape("papersift users needs papersift[accounts] (argon2-cffi): pip install 'papersift[accounts]'"))
    return Accounts.open(directory)


def _run(call):
    from rich.markup import escape

    from papersift.accounts.users import AccountError

    try:
        return call()
    except AccountError as problem:
        fail(escape(str(problem)))  # names come from the command line: no rich markup in them


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        fail("no terminal to ask for the password: pass --password-stdin and write it on stdin")
    first = typer.prompt("Password", hide_input=True)
    if typer.prompt("Password again", hide_input=True) != first:
        fail("the two passwords differ")
    return first


@users_app.command("add")
def add(name: UserArgument,
        password_stdin: Annotated[bool, typer.Option("--password-stdin", help="Read the password from stdin's first line.")] = False,
        data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Create a user (the admin's way; others sign up by invitation). The password is asked for."""
    accounts = open_accounts(data_dir)
    password = _read_password(password_stdin)
    user = _run(lambda: accounts.add_user(name, password))
    if as_json:
        print_json(user.to_dict())
    else:
        console.print(f"added user {user.user_id}", highlight=False, markup=False)


def _print_link(link: str, token: str, expires_at: float, as_json: bool) -> None:
    """A single-use link (invitation or reset): the line to hand over, or its JSON."""
    if as_json:
        print_json({"link": link, "token": token, "expires_at": expires_at})
    else:
        console.print(f"{link}\n(single use; expires {time.strftime('%Y-%m-%d %H:%M', time.localtime(expires_at))})",
                      highlight=False, markup=False)


@users_app.command("invite")
def invite(base_url: Annotated[str, typer.Option("--base-url", help="The server's address, for the link.")] = "http://127.0.0.1:8000",
           days: Annotated[float, typer.Option("--days", min=0.01, max=90, help="Days until the invitation expires.")] = 7,
           data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Print a single-use sign-up link (stored hashed: it is shown only now)."""
    accounts = open_accounts(data_dir)
    token, expires_at = _run(lambda: accounts.invite(days * 24 * 3600))
    link = f"{base_url.rstrip('/')}/signup?invite={token}"
    _print_link(link, token, expires_at, as_json)


@users_app.command("reset")
def reset(name: UserArgument,
          base_url: Annotated[str, typer.Option("--base-url", help="The server's address, for the link.")] = "http://127.0.0.1:8000",
          hours: Annotated[float, typer.Option("--hours", min=0.1, max=24 * 14, help="Hours until the link expires.")] = 24,
          data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """Print a single-use link that sets a new password for NAME (stored hashed: shown only now;
    a newer link replaces it). Using it ends every session of NAME."""
    accounts = open_accounts(data_dir)
    token, expires_at = _run(lambda: accounts.create_reset(name, hours * 3600))
    link = f"{base_url.rstrip('/')}/reset?token={token}"
    _print_link(link, token, expires_at, as_json)


@users_app.command("list")
def list_users(removed: Annotated[bool, typer.Option("--removed", help="Also list removed users.")] = False,
               data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """The users, by name."""
    users = open_accounts(data_dir).users(include_removed=removed)
    if as_json:
        print_json({"users": [user.to_dict() for user in users]})
        return
    for user in users:
        created = time.strftime("%Y-%m-%d", time.localtime(user.created_at))
        console.print(f"{user.user_id}\t{created}{'  (removed)' if user.removed_at else ''}", highlight=False, markup=False)
    if not users:
        console.print("no users", highlight=False)


@users_app.command("remove")
def remove(name: UserArgument, data_dir: DataDirOption = None, as_json: JsonOption = False) -> None:
    """End a user's logins, sessions and API tokens. The name stays taken and the user's library
    stays in the store, reachable by nobody."""
    accounts = open_accounts(data_dir)
    user = _run(lambda: accounts.remove_user(name))
    if as_json:
        print_json(user.to_dict())
    else:
        console.print(f"removed user {user.user_id}", highlight=False, markup=False)
