"""papersift similar: the papers nearest to a stored paper."""

from __future__ import annotations

from typing import Annotated

import typer

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    data_dir_of,
    fail,
    print_json,
)


@app.command()
def similar(
    paper_id: Annotated[str, typer.Argument(help="A paper id (see 'papersift show').")],
    size: Annotated[int, typer.Option("--size", min=1, help="How many similar papers.")] = 10,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Only this venue (repeatable).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Papers most similar to a stored paper (its embedding's nearest neighbours)."""
    from papersift.cli.search_cmd import print_response
    from papersift.search.display import search_json
    from papersift.search.service import SearchService
    from papersift.search.similar import UnknownPaperError
    from papersift.search.types import Filters, SearchRequest

    try:
        service = SearchService(data_dir_of(data_dir))
    except FileNotFoundError as exc:
        fail(str(exc))
    if service.get(paper_id) is None:
        fail(f"no paper with id '{paper_id}'")
    request = SearchRequest(mode="hybrid", like_id=paper_id, size=size, filters=Filters(venues=tuple(venue or ())))
    try:
        response = service.search(request)
    except UnknownPaperError:
        fail(f"paper '{paper_id}' has no embedding yet; run 'papersift embed'")
    if any("not available" in notice for notice in response.notices):
        fail("semantic search is not available here: run 'papersift models build' and 'papersift embed'")
    if as_json:
        print_json(search_json(response, "en"))
    else:
        print_response(response)
