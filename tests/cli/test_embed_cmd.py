"""papersift models / embed / similar from the command line: JSON output, errors to stderr with exit 1."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.models import DEFAULT_MODEL, build_model

runner = CliRunner()


@pytest.mark.models
def test_models_list_json_marks_the_default():
    build_model(DEFAULT_MODEL, log=lambda _: None)
    result = runner.invoke(app, ["models", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in orjson.loads(result.stdout)}
    assert rows[DEFAULT_MODEL]["default"] and rows[DEFAULT_MODEL]["built"]


def test_unknown_model_is_an_error():
    result = runner.invoke(app, ["models", "build", "no-such-model"])
    assert result.exit_code == 1
    assert "unknown model" in result.stderr


@pytest.mark.models
def test_embed_without_papers_is_an_error(tmp_path):
    result = runner.invoke(app, ["embed", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1 and "no papers" in result.stderr


@pytest.mark.models
@pytest.mark.drill
def test_embed_corpus_is_resumable(tmp_path, sample_records):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b"".join(orjson.dumps({"_id": f"d{i}", "title": r["title"], "text": r["abstract"]}) + b"\n"
                                for i, r in enumerate(sample_records[:6])))
    args = ["embed", "--corpus", str(corpus), "--cache-dir", str(tmp_path / "cache"), "--json"]
    first = runner.invoke(app, args + ["--limit", "4"])
    assert first.exit_code == 0, first.output
    assert orjson.loads(first.stdout)["embedded"] == 4
    second = orjson.loads(runner.invoke(app, args).stdout)
    # texts: a long abstract is two passages
    assert second["papers"] == 6 and second["texts"] >= 6
    assert (second["cached"], second["embedded"], second["coverage"]) == (4, second["texts"] - 4, 1.0)


def test_a_static_model_is_not_sent_to_dask(tmp_path, monkeypatch):
    """A static model embeds on one machine in about a minute: --dask with it is refused before any work."""
    from papersift.index import embeddings
    from papersift.models import STATIC_MODEL, get_spec

    class Loaded:
        spec = get_spec(STATIC_MODEL)
        name = STATIC_MODEL

    monkeypatch.setattr(embeddings, "make_encoder", lambda *args, **kwargs: Loaded())
    (tmp_path / "papers.sqlite3").write_bytes(b"")
    result = runner.invoke(app, ["embed", "--data-dir", str(tmp_path), "--model", STATIC_MODEL, "--dask", "local"])
    assert result.exit_code == 1 and "static model" in result.stderr


@pytest.mark.parametrize(("option", "value", "message"), [("--variant", "int4", "--variant must be fp32 or int8"),
                                                         ("--device", "gpu", "--device must be one of auto, cpu, cuda")])
def test_a_bad_variant_or_device_is_refused_before_the_model_loads(tmp_path, monkeypatch, option, value, message):
    from papersift.index import embeddings

    def must_not_load(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(embeddings, "make_encoder", must_not_load)
    result = runner.invoke(app, ["embed", "--data-dir", str(tmp_path), option, value])
    assert result.exit_code == 1 and message in result.stderr


def test_embed_writes_progress_lines_to_a_log_file(monkeypatch):
    """Issue 28 item 11: under quickstart stderr is embed.log, where a progress bar draws nothing
    until it ends (e5 was silent for an hour); there a plain line comes at most every 30 s."""
    import io

    from rich.console import Console

    from papersift.cli import embed_cmd

    log = io.StringIO()
    monkeypatch.setattr(embed_cmd, "err_console", Console(file=log, force_terminal=False, width=200))
    times = iter([0.0, 10.0, 31.0, 40.0])
    monkeypatch.setattr(embed_cmd.time, "monotonic", lambda: next(times))
    log_line = embed_cmd._plain_progress(as_json=False)
    for number in range(4):
        log_line(f"embed e5: {number} of 4 texts")
    assert log.getvalue().splitlines() == ["embed e5: 0 of 4 texts", "embed e5: 2 of 4 texts"]
    terminal = io.StringIO()
    monkeypatch.setattr(embed_cmd, "err_console", Console(file=terminal, force_terminal=True))
    embed_cmd._plain_progress(as_json=False)("drawn by the bar instead")
    assert terminal.getvalue() == ""
