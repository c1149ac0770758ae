"""papersift venue NAME [YEAR]: a venue's figures (papersift.people.venues)."""

from __future__ import annotations

from typing import Annotated

import typer

from papersift.cli.app import DataDirOption, JsonOption, app, console, fail, print_json
from papersift.cli.author_cmd import people_store


@app.command()
def venue(
    name: Annotated[str, typer.Argument(help="ICML, NeurIPS, ICLR, ...")],
    year: Annotated[int | None, typer.Argument(help="One year (default: all).")] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """A venue's papers per year, oral/spotlight/poster shares, acceptance rates, top authors and institutions."""
    from papersift.people.venues import VenueNotFound, venue_stats

    try:
        stats = venue_stats(people_store(data_dir), name, year)
    except VenueNotFound as exc:
        fail(str(exc))
    if as_json:
        print_json(stats)
        return
    console.print(f"[bold]{stats['venue']}[/] {stats['year'] or ''}: {stats['papers']:,} papers, "
                  f"{stats['with_code']:,} with code", highlight=False)
    for y, count in stats["papers_by_year"].items():
        shares = ", ".join(f"{status} {item['share']:.0%}" for status, item in stats["status_by_year"][y].items())
        rate = stats["acceptance"].get(y)
        accepted = f"  accepted {rate['accepted']}/{rate['submitted']} = {rate['rate']:.1%}" if rate else ""
        console.print(f"  {y}: {count:,} ({shares}){accepted}", highlight=False)
    console.print("top authors: " + ", ".join(f"{a['name']} ({a['papers']})" for a in stats["top_authors"][:10]),
                  highlight=False, markup=False)
    console.print("top institutions: " + ", ".join(f"{i['institution']} ({i['papers']})"
                                                   for i in stats["top_institutions"][:10]), highlight=False, markup=False)
    for paper in stats["most_cited"][:5]:
        console.print(f"  cited {paper['citations']:,} (as of {paper['citations_as_of']}): {paper['title']}",
                      highlight=False, markup=False)
