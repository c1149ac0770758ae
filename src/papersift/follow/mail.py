"""Delivering queued digests: by SMTP when configured, else as files under DATA_DIR/digests/.

SMTP settings come from the environment (credentials never touch the data dir):
PAPERSIFT_SMTP_HOST (set: SMTP is on), PAPERSIFT_SMTP_PORT (587), PAPERSIFT_SMTP_STARTTLS
(1: required, the default; 0: plain, for a local relay), PAPERSIFT_SMTP_USER and
PAPERSIFT_SMTP_PASSWORD (login when set), PAPERSIFT_SMTP_FROM, PAPERSIFT_SMTP_TIMEOUT (30 s).
The recipient is the user's `email` setting, else (for the local user only) PAPERSIFT_DIGEST_TO.

A digest is recorded sent only after the server accepted it (send_message returned); on any
failure delivery stops and the rest wait, in order, for the next run. The one window left is a
kill between the server's acceptance and that record: the next run sends it again, with the
same Message-ID, so a mail client can fold the two.
"""

from __future__ import annotations

import os
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path

from papersift.component_schema import LOCAL_USER
from papersift.follow.saved import FollowError
from papersift.follow.state import Digest, Following, check_address

DIGESTS_DIR = "digests"


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int = 587
    starttls: bool = True
    username: str | None = None
    password: str | None = None
    sender: str = "papersift@localhost"
    timeout: float = 30.0
    recipient: str | None = None  # PAPERSIFT_DIGEST_TO


def smtp_config(env) -> SmtpConfig | None:
    host = env.get("PAPERSIFT_SMTP_HOST", "").strip()
    if not host:
        return None
    try:
        port, timeout = int(env.get("PAPERSIFT_SMTP_PORT", "587")), float(env.get("PAPERSIFT_SMTP_TIMEOUT", "30"))
    except ValueError:
        raise FollowError("PAPERSIFT_SMTP_PORT and PAPERSIFT_SMTP_TIMEOUT must be numbers") from None
    sender, recipient = env.get("PAPERSIFT_SMTP_FROM") or "papersift@localhost", env.get("PAPERSIFT_DIGEST_TO") or None
    check_address(sender, "PAPERSIFT_SMTP_FROM")
    if recipient is not None:
        check_address(recipient, "PAPERSIFT_DIGEST_TO")
    return SmtpConfig(host, port, env.get("PAPERSIFT_SMTP_STARTTLS", "1").strip().lower() not in ("0", "false", "no"),
                      env.get("PAPERSIFT_SMTP_USER") or None, env.get("PAPERSIFT_SMTP_PASSWORD") or None,
                      sender, timeout, recipient)


@dataclass
class DeliveryReport:
    by: str  # "smtp" or "files"
    delivered: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)  # still in the outbox (the failure stopped delivery)
    error: str | None = None

    def summary(self) -> str:
        done = f"{len(self.delivered)} delivered by {self.by}"
        return done + (f"; {len(self.waiting)} waiting for the next run: {self.error}" if self.error else "")

    def to_dict(self) -> dict:
        return {"by": self.by, "delivered": self.delivered, "waiting": self.waiting, "error": self.error}


def message_of(digest: Digest, sender: str, recipient: str) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = digest.subject
    message["From"] = sender
    message["To"] = recipient
    message["Date"] = formatdate(digest.created_at, localtime=False)
    domain = sender.rpartition("@")[2] or "localhost"
    message["Message-ID"] = f"<papersift-digest-{digest.id}-{int(digest.created_at)}@{domain}>"  # the same on a resend
    message.set_content(digest.text_body)
    message.add_alternative(digest.html_body, subtype="html")
    return message


def _send(config: SmtpConfig, message: EmailMessage) -> None:
    with smtplib.SMTP(config.host, config.port, timeout=config.timeout) as client:
        if config.starttls:
            client.starttls(context=ssl.create_default_context())  # raises when the server has no STARTTLS
        if config.username:
            client.login(config.username, config.password or "")
        client.send_message(message)


def digests_folder(data_dir: Path, user_id: str) -> Path:
    """DATA_DIR/digests for the local user (as before accounts), DATA_DIR/digests/<user> for an
    account (user ids are [a-z0-9._-], starting with a letter or digit: a plain folder name)."""
    return data_dir / DIGESTS_DIR if user_id == LOCAL_USER else data_dir / DIGESTS_DIR / user_id


def _write_files(folder: Path, digest: Digest) -> Path:
    """FOLDER/digest-<id>.txt and .html, each written whole (temporary file, then rename)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"digest-{digest.id:06d}"
    for suffix, body in ((".txt", digest.text_body), (".html", digest.html_body)):
        temporary = stem.with_suffix(suffix + ".tmp")
        temporary.write_text(body, encoding="utf-8")
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, stem.with_suffix(suffix))
    return stem


def deliver(following: Following, data_dir: Path, config: SmtpConfig | None, email: str | None) -> DeliveryReport:
    """Every unsent digest, oldest first; stops at the first failure (the rest wait)."""
    waiting = following.unsent_digests()
    report = DeliveryReport("smtp" if config else "files")
    # PAPERSIFT_DIGEST_TO is the install's one reader: an account's digest goes to its own address only
    recipient = email or (config.recipient if config and following.user_id == LOCAL_USER else None)
    if config and not recipient and waiting:
        report.waiting = [digest.id for digest in waiting]
        report.error = "no recipient: set one with 'papersift digest --email ADDRESS' or PAPERSIFT_DIGEST_TO"
        return report
    for position, digest in enumerate(waiting):
        try:
            if config and recipient:
                _send(config, message_of(digest, config.sender, recipient))
                sent_to = recipient
            else:
                sent_to = f"file:{_write_files(digests_folder(data_dir, following.user_id), digest)}"
        except (OSError, smtplib.SMTPException) as error:
            report.waiting = [item.id for item in waiting[position:]]
            report.error = f"{type(error).__name__}: {error}".strip()
            return report
        following.record_sent(digest.id, sent_to)
        report.delivered.append(digest.id)
    return report
