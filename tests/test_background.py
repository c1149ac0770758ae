"""quickstart's background chain (papersift.background): stages run in order, each logged to
embed.log with its start and end, where they stand recorded in background.json for the server to
read; the first failure stops the chain; a dead chain reads as stopped, not running."""

from __future__ import annotations

import sys

from papersift.background import STATUS_FILE, Stage, read_status, run_chain


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_stages_run_in_order_and_each_is_logged_and_recorded(tmp_path):
    marker = tmp_path / "order.txt"
    stages = [Stage("first", _python(f"open({str(marker)!r}, 'a').write('1'); print('one')")),
              Stage("second", _python(f"open({str(marker)!r}, 'a').write('2'); print('two')"))]
    assert run_chain(tmp_path, stages) == 0
    assert marker.read_text() == "12"
    log = (tmp_path / "embed.log").read_text()
    assert "stage 1/2: first ..." in log and "stage 2/2: second done in" in log and "one" in log and "two" in log
    status = read_status(tmp_path)
    assert status is not None and status.finished and status.alive  # the writer's pid is this test's process
    assert [stage["state"] for stage in status.stages] == ["done", "done"]
    assert all(stage["ended_at"] >= stage["started_at"] for stage in status.stages)


def test_a_failing_stage_stops_the_chain_and_says_so(tmp_path):
    stages = [Stage("breaks", _python("import sys; sys.exit(3)")), Stage("never", _python("print('never')"))]
    assert run_chain(tmp_path, stages) == 3
    status = read_status(tmp_path)
    assert status is not None and [stage["state"] for stage in status.stages] == ["failed", "waiting"]
    assert "stage 1/2: breaks FAILED (exit 3)" in (tmp_path / "embed.log").read_text()


def test_a_stage_that_is_not_required_may_fail_and_the_next_still_runs(tmp_path):
    """quickstart's first, words-only topic predictions cannot train on a corpus with too few
    labelled papers; the vectors after them must still be made."""
    stages = [Stage("first topics", _python("import sys; sys.exit(2)"), required=False),
              Stage("vectors", _python("print('made')"))]
    assert run_chain(tmp_path, stages) == 0
    status = read_status(tmp_path)
    assert status is not None and [stage["state"] for stage in status.stages] == ["failed", "done"]
    log = (tmp_path / "embed.log").read_text()
    assert "stage 1/2: first topics FAILED (exit 2)" in log and "made" in log


def test_a_chain_that_died_reads_as_stopped(tmp_path):
    (tmp_path / STATUS_FILE).write_text('{"pid": 999999999, "stages": [{"name": "e5 vectors", "state": "running", '
                                        '"started_at": 1.0, "ended_at": null}]}')
    status = read_status(tmp_path)
    assert status is not None and not status.alive and status.running is None
    assert status.state_of("e5 vectors") == "stopped" and status.state_of("nothing") is None
    assert read_status(tmp_path / "missing") is None
