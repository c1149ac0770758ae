"""Resume state of one fetch job, kept in the data dir beside the pages it downloaded.

DATA_DIR/fetch/<source>/<job>/state.json holds the cursor of the next request (an offset
or a resumption token) and the page files already saved; it is rewritten atomically after
every page, so a fetch killed at any point resumes at the first page it did not save.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import orjson

STATE_FILE = "state.json"


@dataclass
class FetchState:
    request: dict  # what was asked (venue, query, ...): a different request starts over
    cursor: dict | None  # where the next page starts; None once the listing is complete
    pages: list[str] = field(default_factory=list)
    records: int = 0

    @property
    def done(self) -> bool:
        return self.cursor is None


def job_dir(data_dir: Path, source: str, key: str) -> Path:
    """A folder name that is readable and unique per request: 'ICLR.cc_2024_Conference-1a2b3c4d'."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_")[:60] or "job"
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    return Path(data_dir) / "fetch" / source / f"{readable}-{digest}"


def load_state(directory: Path) -> FetchState | None:
    path = directory / STATE_FILE
    if not path.exists():
        return None
    return FetchState(**orjson.loads(path.read_bytes()))


def save_state(directory: Path, state: FetchState) -> None:
    write_atomic(directory / STATE_FILE, orjson.dumps(asdict(state), option=orjson.OPT_INDENT_2))


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".part")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
