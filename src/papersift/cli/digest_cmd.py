"""papersift digest: the papers new since the last digest in every saved search and tag, sent
by SMTP when configured, else written under DATA_DIR/digests/ (thin wrapper over
papersift.follow.digest)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from papersift.cli.app import DataDirOption, JsonOption, app, console, err_console, fail, print_json
from papersift.cli.saved_cmd import open_following
from papersift.follow.digest import DigestRunning, run_digest
from papersift.follow.saved import FollowError
from papersift.index.lexical import IndexMissingError


@app.command()
def digest(
    email: Annotated[str | None, typer.Option("--email", help="Send digests to this address (remembered; '' forgets it).")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="Digest language, zh or en (remembered).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compose the digest of papers new since the last one (every saved search and tag) and deliver
    it, with any earlier digest a failed run left waiting.

    SMTP when PAPERSIFT_SMTP_HOST is set (PORT, STARTTLS, USER, PASSWORD, FROM in the same
    PAPERSIFT_SMTP_* variables), else files under DATA_DIR/digests/. Exit status 1 when a digest
    could not be delivered: it waits in the outbox for the next run, nothing is lost or sent twice.
    """
    following = open_following(data_dir)
    try:
        if email is not None:
            following.set_setting("email", email.strip() or None)
        if lang is not None:
            following.set_setting("lang", lang)
        report = run_digest(following.store.data_dir, log=lambda line: err_console.print(escape(line), highlight=False))
    except (DigestRunning, FollowError, IndexMissingError) as problem:
        fail(escape(str(problem)))
    if as_json:
        print_json(report.to_dict())
    else:
        for watch, why in report.skipped.items():
            err_console.print(escape(f"{watch}: skipped ({why})"), highlight=False)
        console.print(f"{report.papers} new papers; {report.delivery.summary()}", highlight=False, markup=False)
    if report.delivery.error:
        raise typer.Exit(1)
