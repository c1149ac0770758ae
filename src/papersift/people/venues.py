"""Venue statistics: papers per year, oral / spotlight / poster shares, areas over years,
frequent authors and institutions, most cited papers (with the date of their counts) and,
where the listings kept rejected and withdrawn submissions, acceptance rates.

Accepted papers live in `papers`; not-accepted submissions in `submissions`. A venue-year's
acceptance rate is accepted / (accepted + not accepted), given only where `submissions` has
rows for it (the other listings publish accepted papers alone); the main-conference rate
leaves workshop papers out of the accepted side.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from papersift.people.affiliations import institution
from papersift.store import Store

SHOWN = 20


class VenueNotFound(LookupError):
    """No paper of that venue (or venue-year)."""


def canonical_venue_name(store: Store, venue: str) -> str:
    rows = store.read("SELECT venue FROM papers WHERE venue = ? COLLATE NOCASE LIMIT 1", (venue.strip(),))
    if not rows:
        raise VenueNotFound(f"no papers of venue '{venue}'")
    return rows[0]["venue"]


def summary_key(venue: str, year: int | None) -> str:
    return f"venue:{venue}:{year or ''}"


def venue_stats(store: Store, venue: str, year: int | None = None) -> dict:
    """The venue (or venue-year) page's figures: precomputed by `papersift authors build` when
    nothing was written since, else computed now (~20 ms a year, ~300 ms all ICML years)."""
    name = canonical_venue_name(store, venue)
    stored = store.people_summary(summary_key(name, year))
    if isinstance(stored, dict):  # precompute() stores the dicts compute_venue_stats returns
        return stored
    return compute_venue_stats(store, name, year)


def precompute(store: Store) -> int:
    """Compute every venue's and venue-year's figures and store them; returns how many."""
    stamp = store.people_stamp()
    summaries: dict[str, object] = {}
    for row in store.read("SELECT DISTINCT venue FROM papers WHERE venue IS NOT NULL"):
        all_years = summaries[summary_key(row[0], None)] = compute_venue_stats(store, row[0], None)
        for y in all_years["papers_by_year"]:
            if y != "None":
                summaries[summary_key(row[0], int(y))] = compute_venue_stats(store, row[0], int(y))
    store.replace_people_summaries(stamp, summaries)
    return len(summaries)


def compute_venue_stats(store: Store, name: str, year: int | None = None) -> dict:
    where, params = ("venue=? AND year=?", (name, year)) if year is not None else ("venue=?", (name,))
    per_year = {row["year"]: row["n"] for row in store.read(
        f"SELECT year, COUNT(*) AS n FROM papers WHERE {where} GROUP BY year ORDER BY year", params)}
    if not per_year:
        raise VenueNotFound(f"no papers of {name} {year}")
    statuses: dict[int, Counter[str]] = defaultdict(Counter)
    for row in store.read(f"SELECT year, COALESCE(status, 'unknown') AS status, COUNT(*) AS n FROM papers"
                          f" WHERE {where} GROUP BY year, status", params):
        statuses[row["year"]][row["status"]] = row["n"]
    areas: dict[int, Counter[str]] = defaultdict(Counter)
    for row in store.read(f"SELECT year, area, COUNT(*) AS n FROM papers WHERE {where} AND area IS NOT NULL"
                          f" GROUP BY year, area", params):
        areas[row["year"]][row["area"]] = row["n"]
    authors = store.read(
        f"SELECT COALESCE(a.author_id, a.name_key) AS who, MIN(a.name) AS name, COUNT(*) AS n FROM paper_authors a"
        f" JOIN papers p ON p.id = a.paper_id WHERE p.{where.replace(' AND ', ' AND p.')} GROUP BY who"
        f" ORDER BY n DESC, who LIMIT {SHOWN}", params)
    institutions: Counter[tuple[str, str]] = Counter()  # (institution, paper id)
    shown_as: dict[str, str] = {}
    for row in store.read(
            f"SELECT a.paper_id, a.affiliation FROM paper_authors a JOIN papers p ON p.id = a.paper_id"
            f" WHERE p.{where.replace(' AND ', ' AND p.')} AND a.affiliation IS NOT NULL", params):
        first = row["affiliation"].split("+")[0].strip()
        key = institution(first)
        if key:
            institutions[(key, row["paper_id"])] = 1  # an institution counts once per paper
            shown_as.setdefault(key, first)
    per_institution = Counter(key for key, _ in institutions)
    cited = store.read(f"SELECT id, title, year, citations, citations_as_of FROM papers WHERE {where}"
                       f" AND citations IS NOT NULL ORDER BY citations DESC, id LIMIT {SHOWN}", params)
    with_code = store.read(f"SELECT COUNT(*) FROM papers WHERE {where} AND code_url IS NOT NULL", params)[0][0]
    with_citations = store.read(f"SELECT COUNT(*) FROM papers WHERE {where} AND citations IS NOT NULL", params)[0][0]
    return {
        "venue": name,
        "year": year,
        "papers": sum(per_year.values()),
        "papers_by_year": {str(y): n for y, n in per_year.items()},
        "status_by_year": {str(y): _shares(statuses[y]) for y in per_year},
        "acceptance": acceptance_rates(store, name, year),
        "areas_by_year": {str(y): dict(areas[y].most_common()) for y in sorted(areas)},
        "top_authors": [{"id": row["who"], "name": row["name"], "papers": row["n"]} for row in authors],
        "top_institutions": [{"institution": shown_as[key], "papers": n} for key, n in per_institution.most_common(SHOWN)],
        "with_code": with_code,
        "with_citations": with_citations,
        "most_cited": [dict(row) for row in cited],
    }


def _shares(counts: Counter[str]) -> dict:
    total = sum(counts.values())
    return {status: {"papers": n, "share": round(n / total, 4)} for status, n in counts.most_common()}


def acceptance_rates(store: Store, venue: str, year: int | None = None) -> dict:
    """{year: {submitted, accepted, accepted_main, not_accepted by status, rate, main_rate}} for
    the venue-years whose listings carry not-accepted submissions."""
    where, params = ("venue=? AND year=?", (venue, year)) if year is not None else ("venue=?", (venue,))
    rejected: dict[int, dict[str, int]] = defaultdict(dict)
    for row in store.read(f"SELECT year, status, COUNT(*) AS n FROM submissions WHERE {where}"
                          f" GROUP BY year, status", params):
        rejected[row["year"]][row["status"]] = row["n"]
    rates = {}
    for y in sorted(rejected):
        accepted = store.read("SELECT COUNT(*) FROM papers WHERE venue=? AND year=?", (venue, y))[0][0]
        workshop = store.read("SELECT COUNT(*) FROM papers WHERE venue=? AND year=? AND status LIKE '%workshop%'",
                              (venue, y))[0][0]
        submitted = accepted + sum(rejected[y].values())
        rates[str(y)] = {"submitted": submitted, "accepted": accepted, "accepted_main": accepted - workshop,
                         "not_accepted": rejected[y], "rate": round(accepted / submitted, 4),
                         "main_rate": round((accepted - workshop) / submitted, 4)}
    return rates
