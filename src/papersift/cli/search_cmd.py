"""papersift search: a thin wrapper over SearchService."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Annotated

import typer
from rich.markup import escape
from rich.text import Text

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    console,
    data_dir_of,
    err_console,
    fail,
    print_json,
)
from papersift.config import DEFAULT_PAGE_SIZE
from papersift.search.display import format_authors, hint_text, language_of, search_json
from papersift.search.types import Filters, Mode, QuerySyntaxError, SearchRequest, SearchResponse, is_mode, is_sort

MARKED = re.compile(r"<mark>(.*?)</mark>", re.DOTALL)


@app.command()
def search(
    query: Annotated[str, typer.Argument(
        help='Query: words, "phrases", -not, OR, author: title: venue: year:2020..2024 area: subarea: status:')] = "",
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Venue (repeat for any of several).")] = None,
    year: Annotated[str | None, typer.Option("--year", help="Year or range: 2020, 2020..2024, 2020.., ..2019.")] = None,
    area: Annotated[list[str] | None, typer.Option("--area", help="Area (repeatable).")] = None,
    subarea: Annotated[list[str] | None, typer.Option("--subarea", help="Subarea (repeatable).")] = None,
    author: Annotated[list[str] | None, typer.Option("--author", help="Author (repeat: all must match).")] = None,
    status: Annotated[list[str] | None, typer.Option("--status", help="Status such as Oral, Poster (repeatable).")] = None,
    institution: Annotated[list[str] | None, typer.Option(
        "--institution", help="An author's institution, as the lists spell it (repeat for any of several).")] = None,
    has_code: Annotated[bool, typer.Option("--has-code", help="Only papers with a code link.")] = False,
    sort: Annotated[str, typer.Option("--sort", help="relevance, newest, oldest or cited (most cited first).")] = "relevance",
    page: Annotated[int, typer.Option("--page", min=1, help="Result page, from 1.")] = 1,
    size: Annotated[int, typer.Option("--size", min=1, help="Hits per page.")] = DEFAULT_PAGE_SIZE,
    mode: Annotated[str, typer.Option("--mode", help="hybrid (default: keyword + semantic fused), keyword or semantic.")] = "hybrid",
    like: Annotated[typer.FileText | None, typer.Option(
        "--like", help="Find papers like this text (a file, or - for stdin); implies --mode hybrid unless semantic.")] = None,
    literal: Annotated[bool, typer.Option(
        "--literal", help="Search the words as typed: no reading of titles, names, ids, venue/year words or "
                          "misspellings, no English reading of Chinese words.")] = False,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the papers; prints hits like the results page (Area · Subarea, title, authors, abstract)."""
    from papersift.library.entries import Library
    from papersift.library.search_filter import query_tags, with_tag_papers
    from papersift.search.query import parse_query
    from papersift.search.service import SearchService

    if not is_sort(sort):
        fail(f"--sort must be relevance, newest, oldest or cited, not '{sort}'")
    if not is_mode(mode):
        fail(f"--mode must be keyword, semantic or hybrid, not '{mode}'")
    try:
        year_filter = parse_query(f"year:{year}").filters if year else Filters()
    except QuerySyntaxError as exc:
        fail(f"--year: {exc.problem}")
    filters = Filters(
        venues=tuple(venue or ()), year_from=year_filter.year_from, year_to=year_filter.year_to,
        areas=tuple(area or ()), subareas=tuple(subarea or ()), authors=tuple(author or ()),
        statuses=tuple(status or ()), institutions=tuple(institution or ()), has_code=has_code,
    )
    like_text = like.read() if like is not None else None
    if like_text is not None and not like_text.strip():
        fail("--like: the text is empty")
    request_mode: Mode = "hybrid" if like_text is not None and mode == "keyword" else mode
    request = SearchRequest(query=query, mode=request_mode, filters=filters, sort=sort, page=page, size=size,
                            like_text=like_text, literal=literal)
    tag_notices: list = []
    try:
        directory = data_dir_of(data_dir)
        if query_tags(query) and (directory / "papers.sqlite3").exists():  # tag:NAME searches the local library
            request, tag_notices = with_tag_papers(Library.open(directory, readonly=True), request)
        response = SearchService(directory).search(request)
        if tag_notices:
            response = replace(response, notices=[*response.notices, *tag_notices])
    except QuerySyntaxError as exc:
        fail(f"query: {exc}\n  {escape(query)}\n  {' ' * exc.position}^")
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        print_json(search_json(response, language_of(query)))
    else:
        print_response(response)


def print_response(response: SearchResponse) -> None:
    request = response.request
    lang = language_of(request.query)
    for notice in response.notices:
        err_console.print(f"[yellow]note:[/] {escape(notice)}", highlight=False)
    print_reading(response.reading)
    first = (request.page - 1) * request.size + 1
    last = first + len(response.hits) - 1
    shown = f"{first}–{last} of " if response.hits else ""
    counted = f"{response.total:,} papers"
    matches = response.keyword_matches
    if response.total_counts == "ranked" and response.total and (matches is None or matches < response.total):
        counted = (f"{response.total:,} papers close in meaning" if matches is None else
                   f"{response.total:,} papers: {matches:,} with all the words, the rest close in meaning")
    if response.suggestion:
        err_console.print(f"[yellow]did you mean:[/] {escape(response.suggestion)} (searched; --literal searches as typed)",
                          highlight=False)
    person = getattr(response.intent, "person", None)
    if person is not None:
        console.print(f"author: {escape(person.name)} → papersift author {escape(person.key)!r}", highlight=False)
        for other in person.namesakes:  # others written the same way: the query may mean any of them
            console.print(f"  also: {escape(other.name)} ({other.papers:,} papers{escape(hint_text(other.hint))})"
                          f" → papersift author {escape(other.key)!r}", highlight=False)
        if person.more_namesakes:
            console.print(f"  and {person.more_namesakes:,} more: papersift author {escape(person.name)!r}", highlight=False)
    console.print(f"[bold]论文检索[/]  {shown}{counted}  ({response.took_ms:.1f} ms)\n", highlight=False)
    for hit in response.hits:
        paper = hit.paper
        if paper.topic:
            predicted = " (predicted)" if hit.topic_predicted else ""
            console.print(f"[dim]{escape(paper.topic)}{predicted}[/]", highlight=False)
        title = marked_text(hit.highlights.get("title") or html.escape(paper.title), "bold")
        title.append(f"  {paper.venue or ''} {paper.year or ''}".rstrip(), style="dim")
        console.print(title)
        if paper.authors:
            console.print(escape(format_authors(paper.authors, lang)), style="italic", highlight=False)
        if paper.abstract:
            console.print(marked_text(hit.highlights.get("abstract") or html.escape(paper.abstract)))
        console.print()
    if response.total > last:
        console.print(f"[dim]more: --page {request.page + 1}[/]")


def print_reading(reading) -> None:
    """What a Chinese query was searched as: "弱监督学习 → weakly supervised learning", each
    term's other readings after it (type one of them to search it instead)."""
    if reading is None:
        return
    for term in reading.terms:
        english = term.english or "(not read)"
        # a guess is said to be one ("maybe"); a name is searched as an author
        maybe = "maybe " if term.english and not term.shown_sure else ""
        author = "author: " if term.source == "name" else ""
        others = f"  [dim](also: {escape('; '.join(term.alternatives))})[/]" if term.alternatives else ""
        console.print(f"{escape(term.chinese)} → {maybe}{author}[bold]{escape(english)}[/]{others}", highlight=False)
    if reading.english:
        console.print(f"[dim]searched as:[/] {escape(reading.english)}", highlight=False)
    if reading.authors:
        console.print(f"[dim]papers by:[/] {escape('; '.join(reading.authors))}", highlight=False)
    console.print()


def marked_text(marked_html: str, style: str = "") -> Text:
    """Highlight HTML (escaped text with <mark>) as terminal text with the marks in colour."""
    text = Text(style=style)
    cursor = 0
    for match in MARKED.finditer(marked_html):
        text.append(html.unescape(marked_html[cursor:match.start()]))
        text.append(html.unescape(match.group(1)), style="bold yellow")
        cursor = match.end()
    text.append(html.unescape(marked_html[cursor:]))
    return text
