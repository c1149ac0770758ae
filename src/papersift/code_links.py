"""Code links: the GitHub / GitLab repository a paper points to, from a listing's `github`
field (often markdown: `[![github](icon) owner/repo](https://github.com/owner/repo)`) or from
the first repository URL its abstract mentions."""

from __future__ import annotations

import re

REPOSITORY_URL = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", re.IGNORECASE)
SITE_PAGES = {"features", "about", "pricing", "topics", "sponsors", "orgs", "users", "settings", "marketplace"}


def code_link(text: str | None) -> str | None:
    """The first repository URL in `text` ('https://github.com/owner/repo'), or None.
    Trailing punctuation of the sentence ('repo.', 'repo).') is not part of the link."""
    if not text:
        return None
    for match in REPOSITORY_URL.finditer(text):
        url = match.group(0).rstrip(".,;:")
        if url.endswith(".git"):
            url = url[:-4]
        owner = url.split("/")[3].lower()
        if owner not in SITE_PAGES:
            return url
    return None
