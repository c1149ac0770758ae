"""`papersift digest`: for every saved search and tag of a user, the papers new since the last
digest, as one message (plain text and HTML, in the user's language), queued in the outbox
and then delivered (follow/mail.py).

Composing and queueing is one transaction with the digest marks it covers (Following.
queue_digest): a kill before it leaves nothing and the next run composes the same papers; a
kill after it leaves the digest in the outbox, delivered by the next run. Nothing is marked
sent before the SMTP server took it (or the file was written), so a server that is down loses
nothing; a second run finds nothing new and sends nothing. Runs hold DATA_DIR/digest.lock:
two at once could compose the same papers twice.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from papersift import run_locks
from papersift.component_schema import LOCAL_USER
from papersift.follow.mail import DeliveryReport, deliver, smtp_config
from papersift.follow.state import Following
from papersift.follow.watches import Listing, list_watch
from papersift.i18n import Lang, translate
from papersift.library.entries import Library
from papersift.store import Store

LOCK_FILE = "digest.lock"
BASE_URL_ENV = "PAPERSIFT_BASE_URL"  # where links in a digest point (the server's public URL)
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
AUTHORS_SHOWN = 5

HTML = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string("""\
<!doctype html>
<html lang="{{ 'zh-CN' if lang == 'zh' else 'en' }}"><head><meta charset="utf-8"><title>{{ subject }}</title></head>
<body>
<h1>{{ heading }}</h1>
{% for section in sections %}
<h2>{{ section.title }} <small>({{ section.count }})</small></h2>
<ul>
{% for paper in section.papers %}
<li><a href="{{ paper.url }}">{{ paper.title }}</a><br>{{ paper.byline }}</li>
{% endfor %}
</ul>
{% endfor %}
<p><small>{{ footer }}</small></p>
</body></html>
""")


class DigestRunning(RuntimeError):
    """Another `papersift digest` (or update sending digests) holds the data dir's digest lock."""


@dataclass
class DigestReport:
    queued: int | None = None  # the digest composed by this run (None: nothing new)
    papers: int = 0
    watches: dict[str, int] = field(default_factory=dict)  # watch -> new papers in this run's digest
    skipped: dict[str, str] = field(default_factory=dict)  # watch -> why it could not be listed
    delivery: DeliveryReport = field(default_factory=lambda: DeliveryReport("none"))

    def to_dict(self) -> dict:
        return {"queued": self.queued, "papers": self.papers, "watches": self.watches, "skipped": self.skipped,
                "delivery": self.delivery.to_dict()}


def _paper_lines(listing: Listing, base_url: str) -> list[dict]:
    papers = []
    for paper in listing.new_papers:
        authors = ", ".join(paper.authors[:AUTHORS_SHOWN]) + (" et al." if len(paper.authors) > AUTHORS_SHOWN else "")
        where = " ".join(str(part) for part in (paper.venue, paper.year) if part)
        papers.append({"title": paper.title, "url": f"{base_url}/paper/{quote(paper.id, safe='')}",
                       "byline": " · ".join(part for part in (authors, where) if part)})
    return papers


def render_digest(listings: list[Listing], lang: Lang, base_url: str) -> tuple[str, str, str]:
    """(subject, plain text, HTML) of the listings' new papers."""
    sections: list[dict[str, Any]] = []
    for listing in listings:
        kind = listing.watch.partition(":")[0]
        title = translate("digest_saved" if kind == "saved" else "digest_tag", lang, name=listing.title)
        sections.append({"title": title, "count": translate("digest_new_count", lang, count=len(listing.new_ids)),
                         "papers": _paper_lines(listing, base_url)})
    count = sum(len(listing.new_ids) for listing in listings)
    names = ", ".join(listing.title for listing in listings)
    subject = translate("digest_subject", lang, count=count, names=names[:80] + ("…" if len(names) > 80 else ""))
    heading = translate("digest_heading", lang)
    footer = translate("digest_footer", lang, url=f"{base_url}/saved")
    text = [subject, "", heading, ""]
    for section in sections:
        text += [f"== {section['title']} ({section['count']}) ==", ""]
        for paper in section["papers"]:
            text += [f"- {paper['title']}", f"  {paper['byline']}", f"  {paper['url']}", ""]
    text += ["--", footer, ""]
    html = HTML.render(lang=lang, subject=subject, heading=heading, sections=sections, footer=footer)
    return subject, "\n".join(text), html


def compose(service, following: Following, data_dir: Path, lang: Lang, base_url: str, report: DigestReport) -> None:
    """List every saved search and tag on the digest channel; queue one digest of the new papers."""
    watches = [f"saved:{saved.id}" for saved in following.saved_searches()]
    watches += [f"tag:{tag}" for tag in Library(following.store, following.user_id).tags()]
    listings = []
    for watch in watches:
        listing = list_watch(service, following, watch, channel="digest", data_dir=data_dir)
        if listing.problem:
            report.skipped[watch] = listing.problem
        listings.append(listing)
    fresh = [listing for listing in listings if listing.new_ids]
    if not fresh:
        return
    subject, text, html = render_digest(fresh, lang, base_url)
    report.papers = sum(len(listing.new_ids) for listing in fresh)
    report.watches = {listing.watch: len(listing.new_ids) for listing in fresh}
    report.queued = following.queue_digest(subject, text, html, report.papers,
                                           [(listing.watch, listing.max_seq, [paper.id for paper in listing.papers])
                                            for listing in listings if not listing.problem])


def digest_users(data_dir: Path) -> list[str]:
    """Whom a run composes for: the local user (a personal install's only one), then every
    account not removed (read-only: a store without accounts gains no table by this)."""
    from papersift.accounts.users import Accounts

    accounts = Accounts.open(data_dir, readonly=True)
    try:
        return [LOCAL_USER] + [user.user_id for user in accounts.users()]
    finally:
        accounts.store.close()


@dataclass
class DigestRun:
    """One run's reports, per user."""

    reports: dict[str, DigestReport] = field(default_factory=dict)
    no_address: list[str] = field(default_factory=list)  # accounts skipped: SMTP is on and they set no e-mail

    @property
    def papers(self) -> int:
        return sum(report.papers for report in self.reports.values())

    @property
    def failed(self) -> bool:
        return any(report.delivery.error for report in self.reports.values())

    def to_dict(self) -> dict:
        return {"papers": self.papers, "users": {user: report.to_dict() for user, report in self.reports.items()},
                "no_address": self.no_address}


def run_digests(data_dir: str | Path, *, users: list[str] | None = None, service=None,
                env: Mapping[str, str] | None = None, log: Callable[[str], None] = lambda _: None) -> DigestRun:
    """For each user (default: digest_users), compose the digest of that user's own saved searches
    and tags, then deliver every digest waiting in that user's outbox: by SMTP when
    PAPERSIFT_SMTP_HOST is set (to the user's `email` setting; PAPERSIFT_DIGEST_TO stands in for
    the local user only, so no account's digest lands in another's mailbox), else as files
    under DATA_DIR/digests/ (an account's under DATA_DIR/digests/<user>/)."""
    data_dir = Path(data_dir)
    settings_env: Mapping[str, str] = os.environ if env is None else env
    with run_locks.held_or_refused(data_dir / LOCK_FILE, DigestRunning(f"another 'papersift digest' is running on {data_dir}")):
        config = smtp_config(settings_env)
        if service is None:
            from papersift.search.service import SearchService

            service = SearchService(data_dir)
        base_url = settings_env.get(BASE_URL_ENV, DEFAULT_BASE_URL).rstrip("/")
        run = DigestRun()
        store = Store(data_dir)  # one writable store for every user's tables
        for user_id in digest_users(data_dir) if users is None else users:
            following = Following(store, user_id)
            settings = following.settings()
            if config is not None and user_id != LOCAL_USER and not settings.get("email"):
                run.no_address.append(user_id)  # composing would only fill an outbox nobody receives
                log(f"digest for {user_id}: skipped, no e-mail address (papersift digest --user {user_id} --email ...)")
                continue
            lang: Lang = "zh" if settings.get("lang") == "zh" else "en"
            report = run.reports[user_id] = DigestReport()
            compose(service, following, data_dir, lang, base_url, report)
            log(f"digest for {user_id}: {report.papers} new papers" + (f" in digest {report.queued}" if report.queued else ""))
            report.delivery = deliver(following, data_dir, config, settings.get("email"))
            log(f"digest delivery for {user_id}: {report.delivery.summary()}")
        store.close()
        return run
