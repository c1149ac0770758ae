"""papersift index / search from the command line: page-like output, --json, clear errors."""

from __future__ import annotations

import shutil

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.record import paper_from_dict
from papersift.store import DB_FILE, Store

runner = CliRunner()


@pytest.fixture(scope="module")
def data_dir(sample_data_dir, sample_records, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli_search")
    for path in sample_data_dir.glob(f"{DB_FILE}*"):
        shutil.copy2(path, folder / path.name)
    # One paper with many authors and a hostile title, to see truncation and escaping.
    crowded = dict(sample_records[0], id="TEST-2024-crowded", title="<b>Zebrafish</b> swarms & crowds",
                   authors=[f"Person {i}" for i in range(14)], area="Deep Learning", subarea="Algorithms")
    store = Store(folder)
    store.upsert([paper_from_dict(crowded)])
    result = runner.invoke(app, ["index", "--data-dir", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["documents"] == store.count()
    return folder


def test_search_prints_topic_title_authors_abstract(data_dir):
    result = runner.invoke(app, ["search", "zebrafish", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines[1] == "Deep Learning · Algorithms"
    assert lines[2].startswith("<b>Zebrafish</b> swarms & crowds")
    assert lines[3].startswith("Person 0, Person 1") and "Person 9 et al." in result.stdout.replace("\n", " ")
    assert "Person 10" not in result.stdout


def test_chinese_query_uses_deng(data_dir):
    result = runner.invoke(app, ["search", "zebrafish 斑马鱼", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "Person 9等" in result.stdout.replace("\n", "")


def test_json_output_with_filters_and_paging(data_dir):
    result = runner.invoke(app, ["search", "learning", "--venue", "ICML", "--year", "2015..2020", "--size", "5",
                                 "--page", "2", "--sort", "newest", "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["page"] == 2 and len(data["hits"]) == 5
    assert all(hit["paper"]["venue"] == "ICML" and 2015 <= hit["paper"]["year"] <= 2020 for hit in data["hits"])
    assert [value["value"] for value in data["facets"]["venue"]] == ["ICML"]
    years = [hit["paper"]["year"] for hit in data["hits"]]
    assert years == sorted(years, reverse=True)


def test_syntax_error_exits_nonzero_with_position(data_dir):
    result = runner.invoke(app, ["search", 'graph "neural', "--data-dir", str(data_dir)])
    assert result.exit_code != 0
    assert "unclosed quote" in result.stderr and "character 7" in result.stderr


def test_bad_options_and_missing_index(data_dir, tmp_path):
    assert runner.invoke(app, ["search", "x", "--sort", "best", "--data-dir", str(data_dir)]).exit_code != 0
    assert runner.invoke(app, ["search", "x", "--year", "20x0", "--data-dir", str(data_dir)]).exit_code != 0
    Store(tmp_path)  # a store without an index
    result = runner.invoke(app, ["search", "x", "--data-dir", str(tmp_path)])
    assert result.exit_code != 0 and "papersift index" in result.stderr


@pytest.fixture(scope="module")
def affiliated_dir(sample_records, tmp_path_factory):
    """The sample with affiliations on every 7th paper (the fixture's records carry none)."""
    from tests.search.test_code_and_institution_facets import _with_affiliations

    from papersift.index import lexical
    from papersift.record import paper_from_dict
    from papersift.store import Store

    folder = tmp_path_factory.mktemp("affiliated")
    store = Store(folder)
    store.upsert([paper_from_dict(record) for record in _with_affiliations(sample_records)])
    store.close()
    lexical.build(folder)
    return folder


def _hits(folder, *arguments: str) -> list[dict]:
    result = runner.invoke(app, ["search", *arguments, "--mode", "keyword", "--size", "100", "--data-dir", str(folder),
                                 "--json"])
    assert result.exit_code == 0, result.output
    return [hit["paper"] for hit in orjson.loads(result.stdout)["hits"]]


def _hit_ids(folder, *arguments: str) -> list[str]:
    return [paper["id"] for paper in _hits(folder, *arguments)]


def test_institution_and_has_code_options_filter_as_the_query_language_does(affiliated_dir):
    by_option = _hit_ids(affiliated_dir, "learning", "--institution", "MIT")
    assert by_option and by_option == _hit_ids(affiliated_dir, "learning institution:MIT")
    with_code = _hit_ids(affiliated_dir, "learning", "--has-code")
    assert with_code and with_code == _hit_ids(affiliated_dir, "learning has:code")
    assert all(paper["code_url"] for paper in _hits(affiliated_dir, "learning", "--has-code"))


def test_a_name_several_people_share_prints_each_of_them(sample_data_dir, tmp_path):
    from tests.search.conftest import namesakes_copy

    folder = namesakes_copy(sample_data_dir, tmp_path / "namesakes")
    result = runner.invoke(app, ["search", "Ada Lovelace", "--mode", "keyword", "--data-dir", str(folder)])
    assert result.exit_code == 0, result.output
    also = [line for line in result.stdout.splitlines() if line.strip().startswith("also:")]
    assert len(also) == 1 and "Ada Lovelace (3 papers · with Charles <Babbage> · " in also[0]
    assert " ".join(result.stdout.split()).count("→ papersift author '") == 2  # the person shown, and the other
