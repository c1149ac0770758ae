"""Author and venue lookups over real raw listings: API routes, CLI, acceptance rates and
paper counts against the listings' own figures."""

from __future__ import annotations

import gzip
from collections import Counter

import orjson
from typer.testing import CliRunner

from papersift.cli import app as cli_app


def _raw_rows(shared_data, listing):
    return orjson.loads(gzip.decompress((shared_data / "ml_papers" / "raw" / "paperlists" / listing).read_bytes()))


def test_venue_year_counts_and_acceptance_match_the_listing(people_client, shared_data):
    rows = _raw_rows(shared_data, "iclr/iclr2018.json.gz")
    statuses = Counter(row["status"] for row in rows)
    body = people_client.get("/api/venues/iclr/2018").json()
    accepted = sum(n for status, n in statuses.items() if status not in ("Reject", "Withdraw", "Active"))
    assert body["papers"] == accepted and body["papers_by_year"] == {"2018": accepted}
    rate = body["acceptance"]["2018"]
    assert rate["submitted"] == len(rows) and rate["accepted"] == accepted
    assert rate["not_accepted"] == {"Reject": statuses["Reject"], "Withdraw": statuses["Withdraw"], "Active": statuses["Active"]}
    assert rate["accepted_main"] == statuses["Poster"] + statuses["Oral"]
    assert body["status_by_year"]["2018"]["Oral"]["papers"] == statuses["Oral"]


def test_every_rejection_counts_even_without_a_title(people_client, shared_data):
    rows = _raw_rows(shared_data, "iclr/iclr2017.json.gz")
    assert any(row["status"] == "Reject" and not row["title"] for row in rows)
    rate = people_client.get("/api/venues/ICLR/2017").json()["acceptance"]["2017"]
    assert rate["not_accepted"] == {"Reject": sum(row["status"] == "Reject" for row in rows)}
    assert rate["submitted"] == len(rows)


def test_venue_without_rejections_has_no_acceptance_rate_and_cited_are_dated(people_client):
    body = people_client.get("/api/venues/COLM").json()
    assert body["acceptance"] == {} and set(body["papers_by_year"]) == {"2024", "2025"}
    counts = [paper["citations"] for paper in body["most_cited"]]
    assert counts == sorted(counts, reverse=True) and all(paper["citations_as_of"] for paper in body["most_cited"])
    assert body["top_institutions"] and body["top_authors"][0]["papers"] >= body["top_authors"][-1]["papers"]


def test_author_by_name_and_by_openreview_id_agree(people_client, shared_data):
    rows = _raw_rows(shared_data, "colm/colm2024.json.gz") + _raw_rows(shared_data, "colm/colm2025.json.gz")
    ids = Counter(author_id for row in rows for author_id in row["authorids"].split(";") if author_id.startswith("~"))
    openreview_id, papers = ids.most_common(1)[0]
    by_id = people_client.get(f"/api/authors/{openreview_id}").json()
    assert by_id["id"] == openreview_id and by_id["paper_count"] >= papers
    by_name = people_client.get("/api/authors/" + by_id["name"]).json()
    assert by_name["id"] == openreview_id
    assert sum(by_id["papers_by_year"].values()) == by_id["paper_count"] == len(by_id["papers"])
    assert 0 <= by_id["first_author_share"] <= 1 and by_id["coauthors"][0]["papers"] >= 1


def test_unknown_author_and_venue_are_404(people_client):
    assert people_client.get("/api/authors/Nobody%20Atall").status_code == 404
    assert people_client.get("/api/venues/NOPE").json()["error"] == "venue_not_found"


def test_openapi_lists_people_routes_with_models(people_client):
    paths = people_client.get("/openapi.json").json()["paths"]
    assert {"/api/authors/{author}", "/api/venues/{venue}", "/api/venues/{venue}/{year}"} <= set(paths)
    assert "AuthorOut" in str(paths["/api/authors/{author}"]["get"]["responses"]["200"])


def test_cli_author_and_venue_json(people_dir):
    runner = CliRunner()
    result = runner.invoke(cli_app, ["venue", "ICLR", "2017", "--json", "--data-dir", str(people_dir)])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["acceptance"]["2017"]["not_accepted"]["Reject"] > 0
    missing = runner.invoke(cli_app, ["author", "Nobody Atall", "--data-dir", str(people_dir)])
    assert missing.exit_code == 1 and "no author named" in missing.output
