"""What a server loads before it calls itself ready (issue 28 item 10: the first search after
`serve` took 9-16 s): the keyword index and its rows, the vector indexes and the query encoder,
the Chinese-query resources (jieba, CC-CEDICT, the term lexicon, the phrase vectors), by running
one search of each kind the page sends. Loading only: nothing is computed or written.

The server answers at once; `GET /healthz` says `warming` (503) until this is done, then `ready`
(200), with how long it took and where quickstart's background work stands (background.json).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from papersift.background import read_status
from papersift.search.types import Mode

log = logging.getLogger("papersift.api")
router = APIRouter(tags=["health"])
# One search of each kind a first visitor sends: the page's default (hybrid, facets on), keyword,
# and a Chinese query (its English reading).
WARM_QUERIES: tuple[tuple[str, Mode], ...] = (("learning", "hybrid"), ("learning", "keyword"), ("图神经网络", "hybrid"))


@dataclass
class Warmup:
    state: str = "warming"  # warming | ready
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None
    problems: list[str] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def run(self, service, data_dir: Path, extra_steps: list | None = None) -> None:
        from papersift.index.vectors import products_on_one_thread
        from papersift.search.crosslingual import load_resources
        from papersift.search.phrasebridge import warm_up
        from papersift.search.termlexicon import warm_up as warm_up_lexicon
        from papersift.search.types import typed_request

        products_on_one_thread()  # a server's vector products, without BLAS threads spinning beside them

        def search(text: str, mode: Mode) -> Callable[[], object]:
            return lambda: service.search(typed_request(text, mode))

        steps: list[tuple[str, Callable[[], object]]] = [("Chinese resources", load_resources),
                                                         ("term lexicon", lambda: warm_up_lexicon(data_dir)),
                                                         ("phrase vectors", lambda: warm_up(data_dir))]
        steps += [(f"{mode} search", search(text, mode)) for text, mode in WARM_QUERIES]
        # the URL/id map a query naming a paper by id or URL reads first (0.3-1 s at 44,693 papers)
        steps.append(("paper ids", lambda: (catalog := service.intents.catalog()) is not None and catalog.ids))
        for name, step in [*steps, *(extra_steps or [])]:
            try:
                step()
            except Exception as problem:  # noqa: BLE001 - a missing part (no vectors yet) is not a failure to serve
                self.problems.append(f"{name}: {problem}")
        self.seconds = round(time.monotonic() - self.started, 2)
        self.state = "ready"
        self.done.set()


def start_warmup(app, on_ready=None) -> Warmup:
    """Warm the app's service in a thread; `on_ready(warmup)` is called when it is done."""
    warmup = Warmup()
    app.state.warmup = warmup

    def run() -> None:
        # others mounted on the API add theirs (the page: its templates, compiled on first use)
        warmup.run(app.state.service, app.state.settings.data_dir, getattr(app.state, "warm_steps", []))
        if on_ready is not None:
            on_ready(warmup)
    threading.Thread(target=run, name="warm-up", daemon=True).start()
    return warmup


@router.get("/healthz", summary="ready or warming, and where the background work stands")
def healthz(request: Request) -> JSONResponse:
    warmup: Warmup | None = getattr(request.app.state, "warmup", None)
    state = "ready" if warmup is None else warmup.state
    body: dict = {"status": state}
    if warmup is not None and warmup.seconds is not None:
        body["warmed_in_s"] = warmup.seconds
    status = read_status(request.app.state.settings.data_dir)
    if status is not None:
        running = status.running
        body["background"] = {"running": running["name"] if running else None, "alive": status.alive,
                              "stages": {stage["name"]: status.state_of(stage["name"]) for stage in status.stages}}
    return JSONResponse(body, status_code=200 if state == "ready" else 503)
