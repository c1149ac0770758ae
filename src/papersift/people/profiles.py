"""Author profiles: one person's papers by year, venues, co-authors, areas over time,
first/last-author share, affiliations and most cited papers, aggregated from the store.

An author is named by the identity `papersift authors build` assigned (an OpenReview id such
as '~Zico_Kolter1' or a name slug such as 'zico-kolter'), or by a name: the most frequent
identity with that folded spelling answers and the others are listed as namesakes. Before
identities are built, a name means its folded spelling.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from papersift.names import full_key
from papersift.store import Store

COAUTHORS_SHOWN = 25
GRAPH_COAUTHORS = 12  # the co-author graph's ring: the most frequent co-authors
CITED_SHOWN = 10
NAMESAKES_SHOWN = 20


class AuthorNotFound(LookupError):
    """No author with that identity or name."""


def _has_predictions(store: Store) -> bool:
    return bool(store.read("SELECT 1 FROM sqlite_master WHERE type='table' AND name='predicted_topics'"))


def resolve(store: Store, key: str) -> tuple[str, str, list[dict]]:
    """(column, value, namesakes) that select one author's rows in paper_authors."""
    key = key.strip()
    if not key:
        raise AuthorNotFound("empty author name")
    if store.read("SELECT 1 FROM paper_authors WHERE author_id=? LIMIT 1", (key,)):
        return "author_id", key, []
    if key.startswith("~") and store.read("SELECT 1 FROM paper_authors WHERE openreview_id=? LIMIT 1", (key,)):
        return "openreview_id", key, []
    spelling = full_key(key)
    groups = store.read("SELECT author_id, COUNT(*) AS n FROM paper_authors WHERE name_key=?"
                        " GROUP BY author_id ORDER BY n DESC, author_id", (spelling,))
    if not groups:
        raise AuthorNotFound(f"no author named '{key}'")
    if groups[0]["author_id"] is None:
        return "name_key", spelling, []
    namesakes = [{"id": row["author_id"], "papers": row["n"]} for row in groups[1:] if row["author_id"]][:NAMESAKES_SHOWN]
    return "author_id", groups[0]["author_id"], namesakes


def _coauthor_links(others, ring: set[str]) -> list[dict]:
    """Pairs of the graph's co-authors who are on the same papers of this author, with how many:
    read from the author's own papers' author lists (no query past them)."""
    on_paper: dict[str, set[str]] = defaultdict(set)
    for row in others:
        if row["who"] in ring:
            on_paper[row["paper_id"]].add(row["who"])
    pairs: Counter[tuple[str, str]] = Counter()
    for people in on_paper.values():
        ordered = sorted(people)
        pairs.update((a, b) for at, a in enumerate(ordered) for b in ordered[at + 1:])
    return [{"a": a, "b": b, "papers": count} for (a, b), count in sorted(pairs.items(), key=lambda item: (-item[1], item[0]))]


def author_profile(store: Store, key: str) -> dict:
    column, value, namesakes = resolve(store, key)
    mine = store.read(f"SELECT paper_id, position, name, name_key, openreview_id, affiliation FROM paper_authors"
                      f" WHERE {column}=?", (value,))
    paper_ids = sorted({row["paper_id"] for row in mine})
    marks = ",".join("?" * len(paper_ids))
    predicted = ", t.area AS predicted_area" if _has_predictions(store) else ", NULL AS predicted_area"
    join = " LEFT JOIN predicted_topics t ON t.paper_id = p.id" if predicted.startswith(", t.") else ""
    papers = store.read(
        f"SELECT p.id, p.title, p.venue, p.year, p.status, p.area, p.citations, p.citations_as_of, p.code_url,"
        f" json_array_length(p.authors) AS author_count{predicted} FROM papers p{join} WHERE p.id IN ({marks})",
        paper_ids)
    others = store.read(
        f"SELECT paper_id, COALESCE(author_id, name_key) AS who, name FROM paper_authors WHERE paper_id IN ({marks})",
        paper_ids)
    position_of = {row["paper_id"]: row["position"] for row in mine}
    me = {row["paper_id"]: row for row in mine}
    coauthors: Counter[str] = Counter()
    coauthor_name: dict[str, str] = {}
    for row in others:
        if row["who"] == value or (column != "author_id" and me[row["paper_id"]]["name"] == row["name"]):
            continue
        coauthors[row["who"]] += 1
        coauthor_name.setdefault(row["who"], row["name"])
    shown = [who for who, _ in coauthors.most_common(COAUTHORS_SHOWN)]
    links = _coauthor_links(others, set(shown[:GRAPH_COAUTHORS]))
    by_year: Counter[int] = Counter()
    venues: Counter[str] = Counter()
    areas: dict[int, Counter[str]] = defaultdict(Counter)
    first = last = multi = 0
    listed = []
    for paper in papers:
        year = paper["year"] or 0
        by_year[year] += 1
        venues[paper["venue"] or "?"] += 1
        area, source = (paper["area"], "source") if paper["area"] else (paper["predicted_area"], "predicted")
        if area:
            areas[year][f"{area} ({source})"] += 1
        position = position_of[paper["id"]]
        first += position == 0
        if paper["author_count"] > 1:
            multi += 1
            last += position == paper["author_count"] - 1
        listed.append({"id": paper["id"], "title": paper["title"], "venue": paper["venue"], "year": paper["year"],
                       "status": paper["status"], "position": position + 1, "citations": paper["citations"],
                       "citations_as_of": paper["citations_as_of"], "code_url": paper["code_url"]})
    listed.sort(key=lambda item: (-(item["year"] or 0), item["title"]))
    cited = sorted((item for item in listed if item["citations"] is not None), key=lambda item: -item["citations"])
    names = Counter(row["name"] for row in mine)
    return {
        "id": value if column != "name_key" else None,
        "name": names.most_common(1)[0][0],
        "spellings": [{"name": name, "papers": count} for name, count in names.most_common()],
        "openreview_ids": sorted({row["openreview_id"] for row in mine if row["openreview_id"]}),
        "namesakes": namesakes,
        "paper_count": len(listed),
        "papers_by_year": {str(year): by_year[year] for year in sorted(by_year)},
        "venues": [{"venue": venue, "papers": count} for venue, count in venues.most_common()],
        "coauthors": [{"id": who, "name": coauthor_name[who], "papers": coauthors[who]} for who in shown],
        "coauthor_links": links,
        "areas_by_year": {str(year): dict(areas[year].most_common()) for year in sorted(areas)},
        "first_author_share": round(first / len(listed), 3) if listed else 0.0,
        "last_author_share": round(last / multi, 3) if multi else 0.0,
        "affiliations": [{"affiliation": aff, "papers": count} for aff, count in
                         Counter(row["affiliation"] for row in mine if row["affiliation"]).most_common(10)],
        "most_cited": cited[:CITED_SHOWN],
        "with_code": sum(1 for item in listed if item["code_url"]),
        "papers": listed,
    }
