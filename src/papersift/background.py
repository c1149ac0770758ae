"""The work quickstart runs behind its server, one stage after another, and where it stands.

`run_chain` runs each stage's command (a papersift command in a child process, output to
DATA_DIR/embed.log) and records its progress in DATA_DIR/background.json (written beside and
renamed over, so a reader never sees half a file): the stages, which one runs, when each began
and ended, and the chain's pid. The server only reads it (`read_status`): the pages say what the
reader can expect ("recommendations are being prepared"), /healthz reports it, and nothing is
computed while answering. A required stage that fails stops the chain (its error is in
embed.log); one that is not (the first, words-only topic predictions: too few labelled papers in
a corpus of one's own) is recorded as failed and the next runs. A rerun resumes from the caches
each command keeps.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

STATUS_FILE = "background.json"
LOG_FILE = "embed.log"


@dataclass(frozen=True)
class Stage:
    name: str  # what it makes, for the log and the status page: "library features", "e5 vectors"
    command: list[str]
    required: bool = True  # a failure stops the chain; False: logged and recorded, the next stage runs


@dataclass(frozen=True)
class Status:
    stages: list[dict]  # {"name", "state": waiting | running | done | failed, "started_at", "ended_at"}
    pid: int
    alive: bool  # the chain's process still runs (a killed quickstart leaves its last status)

    def state_of(self, name: str) -> str | None:
        """waiting / running / done / failed of a stage, or "stopped" when the chain died before
        it finished; None when the chain has no such stage."""
        for stage in self.stages:
            if stage["name"] == name:
                return "stopped" if stage["state"] in ("waiting", "running") and not self.alive else stage["state"]
        return None

    @property
    def running(self) -> dict | None:
        return next((stage for stage in self.stages if stage["state"] == "running"), None) if self.alive else None

    @property
    def finished(self) -> bool:
        return all(stage["state"] == "done" for stage in self.stages)


def _write(data_dir: Path, stages: list[dict]) -> None:
    path = data_dir / STATUS_FILE
    staging = path.with_name(f".{STATUS_FILE}.{os.getpid()}")
    staging.write_bytes(orjson.dumps({"pid": os.getpid(), "stages": stages}, option=orjson.OPT_INDENT_2))
    staging.replace(path)


def _log(log, line: str) -> None:
    log.write(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {line}\n".encode())
    log.flush()


def run_chain(data_dir: str | os.PathLike, stages: list[Stage]) -> int:
    """Run the stages in order, each logged to embed.log with its start, end and seconds, the
    status file updated around each; the first failure of a required stage stops it."""
    data_dir = Path(data_dir)
    records: list[dict[str, Any]] = [{"name": stage.name, "state": "waiting", "started_at": None, "ended_at": None}
                                     for stage in stages]
    _write(data_dir, records)
    with open(data_dir / LOG_FILE, "ab") as log:
        for number, (stage, record) in enumerate(zip(stages, records), start=1):
            started = time.time()
            record.update(state="running", started_at=started)
            _write(data_dir, records)
            _log(log, f"stage {number}/{len(stages)}: {stage.name} ...")
            code = subprocess.run(stage.command, check=False, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL).returncode
            ended = time.time()
            record.update(state="done" if code == 0 else "failed", ended_at=ended)
            _write(data_dir, records)
            _log(log, f"stage {number}/{len(stages)}: {stage.name} {'done' if code == 0 else f'FAILED (exit {code})'} "
                      f"in {ended - started:.1f} s")
            if code and stage.required:
                return code
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def read_status(data_dir: str | os.PathLike) -> Status | None:
    """The chain's last recorded status (None when this data dir never ran one)."""
    try:
        raw = orjson.loads((Path(data_dir) / STATUS_FILE).read_bytes())
        return Status(list(raw["stages"]), int(raw["pid"]), _alive(int(raw["pid"])))
    except (FileNotFoundError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def main() -> None:
    """`python -m papersift.background DATA_DIR STAGES_JSON`: what quickstart starts."""
    data_dir, stages = sys.argv[1], orjson.loads(sys.argv[2])  # [[name, command, required], ...]
    os.nice(10)  # the chain and the commands it runs yield the CPU to serving
    sys.exit(run_chain(data_dir, [Stage(*stage) for stage in stages]))


if __name__ == "__main__":
    main()
