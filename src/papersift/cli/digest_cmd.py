"""papersift digest: the papers new since the last digest in every saved search and tag, sent
by SMTP when configured, else written under DATA_DIR/digests/ (thin wrapper over
papersift.follow.digest)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from papersift.cli.app import DataDirOption, JsonOption, UserOption, app, console, err_console, fail, print_json
from papersift.cli.saved_cmd import open_following
from papersift.component_schema import LOCAL_USER
from papersift.follow.digest import DigestRunning, run_digests
from papersift.follow.saved import FollowError
from papersift.index.lexical import IndexMissingError


@app.command()
def digest(
    email: Annotated[str | None, typer.Option("--email", help="Send digests to this address (remembered; '' forgets it).")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="Digest language, zh or en (remembered).")] = None,
    user: UserOption = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compose the digest of papers new since the last one (every saved search and tag) and deliver
    it, with any earlier digest a failed run left waiting; for the local user and every account
    (each from their own saved searches and tags), or only for --user.

    SMTP when PAPERSIFT_SMTP_HOST is set (PORT, STARTTLS, USER, PASSWORD, FROM in the same
    PAPERSIFT_SMTP_* variables), else files under DATA_DIR/digests/ (an account's in
    DATA_DIR/digests/NAME/). --email and --lang are the settings of --user (default: the local
    user). Exit status 1 when a digest could not be delivered: it waits in the outbox for the
    next run, nothing is lost or sent twice.
    """
    following = open_following(data_dir, user)
    try:
        if email is not None:
            following.set_setting("email", email.strip() or None)
        if lang is not None:
            following.set_setting("lang", lang)
        run = run_digests(following.store.data_dir, users=None if user is None else [following.user_id],
                          log=lambda line: err_console.print(escape(line), highlight=False))
    except (DigestRunning, FollowError, IndexMissingError) as problem:
        fail(escape(str(problem)))
    if as_json:
        print_json(run.to_dict())
    else:
        for user_id, report in run.reports.items():
            who = "" if list(run.reports) == [LOCAL_USER] else f"{user_id}: "
            for watch, why in report.skipped.items():
                err_console.print(escape(f"{who}{watch}: skipped ({why})"), highlight=False)
            console.print(f"{who}{report.papers} new papers; {report.delivery.summary()}", highlight=False, markup=False)
        for user_id in run.no_address:
            console.print(f"{user_id}: no digest (no e-mail address: papersift digest --user {user_id} --email ADDRESS)",
                          highlight=False, markup=False)
    if run.failed:
        raise typer.Exit(1)
