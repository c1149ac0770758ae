"""What reference managers read from the pages: Highwire `citation_*` meta tags on a paper's
page (Zotero's "Embedded Metadata" translator, Google Scholar) and a COinS span (OpenURL
ContextObject, Z39.88-2004) per result (Zotero's "COinS" translator), so the Zotero connector
saves a paper, or picks from a result list, in one click.

Checked against what the translators read (zotero/translators "Embedded Metadata.js" and
"COinS.js", whose parsing is zotero/utilities `OpenURL.parseContextObject`):
- meta tags are read from <head> only (XPath /html/head/meta), by `name`; each
  `citation_author` holds one name (a ';' in it would split it), kept in order;
  `citation_conference_title` makes the item a conference paper, `citation_technical_report_institution`
  a report; `citation_publication_date`/`citation_date` give the date, `citation_pdf_url` the PDF.
- a COinS title is split on '&' then '=', each value percent-decoded, '+' and '%2B' read as a
  space (so a '+' in a title comes back as a space: nothing on our side can keep it);
  `rft_val_fmt=...mtx:book` with `rft.genre=proceeding` is a conference paper (`rft.atitle` its
  title, `rft.btitle` the proceedings); `mtx:dc` with `rft.type=preprint` a preprint;
  one `rft.au` per author, in order; `rft_id` an http(s) URL becomes the item's URL.
Values are plain text here; Jinja's autoescape escapes them into the attributes.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from papersift.record import Paper

PREPRINT_VENUES = {"arxiv"}  # venues that are preprint servers, not proceedings
MAX_META_ABSTRACT_CHARS = 10_000


def paper_url(site_url: str, paper_id: str) -> str:
    """The paper page's address without a language: what the tags and COinS point at."""
    return f"{site_url}/paper/{quote(paper_id, safe='')}"


def is_preprint(paper: Paper) -> bool:
    return (paper.venue or "").lower() in PREPRINT_VENUES


def _web_link(url: str | None) -> str | None:
    return url if url and url.lower().startswith(("http://", "https://")) else None


def arxiv_number(paper: Paper) -> str | None:
    """`arXiv-2001-cs/0101001` -> `cs/0101001` (ingest.arxiv's id scheme)."""
    parts = paper.id.split("-", 2)
    return parts[2] if is_preprint(paper) and len(parts) == 3 and parts[0].lower() == "arxiv" else None


def citation_meta_tags(paper: Paper, site_url: str) -> list[tuple[str, str]]:
    """(name, content) of the Highwire tags for a paper's page, in the order they go in <head>."""
    tags = [("citation_title", paper.title)]
    tags += [("citation_author", name) for name in paper.authors]
    if paper.year:
        tags += [("citation_publication_date", str(paper.year)), ("citation_date", str(paper.year))]
    if is_preprint(paper):
        tags.append(("citation_technical_report_institution", paper.venue or ""))
        if number := arxiv_number(paper):
            tags.append(("citation_technical_report_number", number))
    elif paper.venue:
        tags.append(("citation_conference_title", paper.venue))
    if pdf := _web_link(paper.pdf):
        tags.append(("citation_pdf_url", pdf))
    tags.append(("citation_abstract_html_url", paper_url(site_url, paper.id)))
    if paper.abstract:
        tags.append(("citation_abstract", paper.abstract[:MAX_META_ABSTRACT_CHARS]))
    tags += [("citation_keywords", keyword) for keyword in paper.keywords]
    return tags


def coins_kev(paper: Paper, site_url: str) -> str:
    """The OpenURL 1.0 KEV ContextObject of a paper (the title attribute of its COinS span)."""
    pairs: list[tuple[str, str]] = [("ctx_ver", "Z39.88-2004"), ("rfr_id", "info:sid/papersift")]
    pairs.append(("rft_id", paper_url(site_url, paper.id)))
    if paper.venue and not is_preprint(paper):
        pairs += [("rft_val_fmt", "info:ofi/fmt:kev:mtx:book"), ("rft.genre", "proceeding"),
                  ("rft.atitle", paper.title), ("rft.btitle", paper.venue)]
    else:  # Dublin Core: rft.type names the Zotero item type, rft.source the server
        pairs += [("rft_val_fmt", "info:ofi/fmt:kev:mtx:dc"), ("rft.type", "preprint" if paper.venue else "document"),
                  ("rft.title", paper.title)]
        if paper.venue:
            pairs.append(("rft.source", paper.venue))
    pairs += [("rft.au", name) for name in paper.authors]
    if paper.year:
        pairs.append(("rft.date", str(paper.year)))
    return urlencode(pairs, quote_via=quote, safe="")
