"""bench hybrid: pages timed by stage, summarised per run, and its report."""

from __future__ import annotations

import time
from types import SimpleNamespace

from papersift.bench import hybrid
from papersift.bench.hybrid import known_item_queries, markdown, query_encoder_name, summarize, time_pages
from papersift.search.stages import stage


class StagedService:
    """Stands in for SearchService: each page spends known time in two stages."""

    def __init__(self):
        self.asked = []
        self.spent = []  # each page's time inside its two stages, as this stand-in measured it

    def search(self, request):
        self.asked.append((request.query, request.mode, request.size))
        spent = {}
        for name, seconds in (("encode", 0.02), ("engine", 0.005)):
            with stage(name):
                started = time.perf_counter()
                time.sleep(seconds)
                spent[name] = (time.perf_counter() - started) * 1000
        self.spent.append(spent)
        return SimpleNamespace(hits=[1, 2, 3])


def test_each_page_is_a_hybrid_page_of_20_timed_by_stage():
    service = StagedService()
    pages = time_pages(service, ["graph neural networks for molecules", "attention is all"])
    assert service.asked == [("graph neural networks for molecules", "hybrid", 20), ("attention is all", "hybrid", 20)]
    for page, spent in zip(pages, service.spent, strict=True):
        assert page["hits"] == 3
        # each stage is timed on its own (not one stage's time in the other's), whatever the load
        for name in ("encode", "engine"):
            assert spent[name] - 0.001 <= page["stages_ms"][name] < spent[name] + 2  # rounded to 0.001 ms
        assert page["stages_ms"]["encode"] >= 19 and page["stages_ms"]["engine"] >= 4
        assert page["wall_ms"] >= page["stages_ms"]["encode"] + page["stages_ms"]["engine"]


def test_summary_gives_each_stage_p50_p95_mean_and_zero_where_a_page_lacks_it():
    pages = [{"wall_ms": float(ms), "cpu_ms": 1.0, "stages_ms": {"encode": float(ms)}} for ms in range(1, 11)]
    pages[0]["stages_ms"]["reading"] = 10.0
    result = summarize(pages)
    assert result["pages"] == 10
    assert result["wall_ms"] == {"p50": 5.5, "p95": 9.55, "mean": 5.5}
    assert result["stages_ms"]["reading"] == {"p50": 0.0, "p95": 5.5, "mean": 1.0}


def test_markdown_names_every_run_and_puts_the_largest_stage_first():
    run = {"pages": 2, "load": 1.2, "wall_ms": {"p50": 30.0, "p95": 70.0, "mean": 40.0},
           "cpu_ms": {"p50": 20.0, "p95": 30.0, "mean": 22.0},
           "stages_ms": {"dense": {"p50": 5.0, "p95": 6.0, "mean": 5.5}, "encode": {"p50": 20.0, "p95": 40.0, "mean": 25.0}}}
    text = markdown({"data_dir": "D", "query_encoder": "e5 int8", "threads": 2, "load_before": 1.0,
                     "runs": {"en fresh": run}})
    assert "| en fresh | 2 | 30.0 | 70.0 | 40.0 | 22.0 | 1.2 |" in text
    assert text.index("| encode | 20.0 | 40.0 | 25.0 |") < text.index("| dense | 5.0 | 6.0 | 5.5 |")


def test_the_known_item_queries_are_25_a_language(shared_data):
    assert len(known_item_queries("en", shared_data)) == 25
    assert len(known_item_queries("zh", shared_data)) == 25


def test_the_report_says_when_e5_is_not_built(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSIFT_MODELS_DIR", str(tmp_path))
    assert query_encoder_name() == "multilingual-e5-small not built"


def test_pages_are_timed_after_a_servers_warm_up(tmp_path, monkeypatch):
    """The split is a server's: the pages run after what `serve` loads before it says ready
    (api/warmup.py: the term lexicon's phrase keys among it), not after jieba and CC-CEDICT alone."""
    service = StagedService()
    events = []
    monkeypatch.setattr(hybrid, "SearchService", lambda data_dir: service)
    monkeypatch.setattr(hybrid, "known_item_queries", lambda lang: [f"{lang} query"])
    monkeypatch.setattr(hybrid.Warmup, "run", lambda self, warmed, data_dir: events.append(("warm-up", warmed, data_dir)))
    original = service.search

    def search(request):
        events.append(("page", request.query))
        return original(request)

    monkeypatch.setattr(service, "search", search)
    report = hybrid.run(tmp_path, langs=("zh",))
    assert events[0] == ("warm-up", service, tmp_path)
    assert [event[1] for event in events[1:]] == [hybrid.WARM_UP, "zh query", "zh query"]
    assert set(report["runs"]) == {"zh fresh", "zh remembered"}
