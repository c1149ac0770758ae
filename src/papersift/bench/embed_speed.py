"""Transformer embedding speed per model and setting (issue 20): passages per second over one
fixed sample of real passages, each setting run in turn within every repeat.

On a shared machine an absolute rate says as much about the neighbours as about the setting,
so every run records the load average beside its rate, each setting's rate is also given as a
ratio to the baseline run of the same repeat (measured minutes apart, under similar load), and
passages per CPU-second (process time: what the run itself consumed, which other jobs barely
move; with 2 threads it counts both).
Settings: precision (fp32 / int8), operator threads, graph optimization level, parallel
execution of graph branches, batch size, sorting by length before batching (padding measured),
and the number of tokens a passage is cut to.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from papersift.index.embeddings import Encoder, padding_share
from papersift.models import DEFAULT_MODEL, STATIC_MODEL, get_spec, is_built
from papersift.record import Paper, paper_text
from papersift.search.hybrid import ENGLISH_MODEL


@dataclass(frozen=True, slots=True)
class Setting:
    """One way of running a model; the baseline is e5 on one thread as it ran before the sweep
    (batch 32; Encoder.BATCH is 8 since, measured here)."""

    model: str = DEFAULT_MODEL
    variant: str = "fp32"
    threads: int = 1
    graph_level: str = "all"
    parallel: bool = False  # ORT_PARALLEL with 2 inter-op threads
    batch_size: int = 32
    bucketed: bool = True
    max_tokens: int = 256

    @property
    def label(self) -> str:
        parts = [self.variant, f"{self.threads} thr", f"graph {self.graph_level}", f"batch {self.batch_size}",
                 "sorted by length" if self.bucketed else "unsorted", f"{self.max_tokens} tok"]
        if self.parallel:
            parts.append("parallel 2 inter-op")
        return ", ".join(parts)


BASELINE = Setting()
SETTINGS: tuple[Setting, ...] = (
    BASELINE,
    Setting(variant="int8"),
    Setting(threads=2),
    Setting(variant="int8", threads=2),
    Setting(graph_level="extended"),
    Setting(graph_level="basic"),
    Setting(parallel=True),
    Setting(batch_size=8),
    Setting(batch_size=16),
    Setting(batch_size=64),
    Setting(bucketed=False),
    Setting(max_tokens=128),
    Setting(max_tokens=512),
    Setting(model=ENGLISH_MODEL),
    Setting(model=ENGLISH_MODEL, variant="int8"),
)


def sample_passages(papers: Sequence[Paper], count: int, seed: int = 0) -> list[str]:
    """`count` papers with an abstract, drawn with a fixed seed: the same real passages every run."""
    with_abstract = [paper for paper in papers if (paper.abstract or "").strip()]
    return [paper_text(paper) for paper in random.Random(seed).sample(with_abstract, min(count, len(with_abstract)))]


def run_setting(setting: Setting, passages: Sequence[str]) -> dict:
    """Load the model with `setting`, embed `passages` once (nothing cached), time both."""
    load_started = time.perf_counter()
    encoder = Encoder(setting.model, variant=setting.variant, threads=setting.threads, max_tokens=setting.max_tokens,
                      device="cpu", graph_level=setting.graph_level,
                      parallel=setting.parallel, bucketed=setting.bucketed, batch_size=setting.batch_size)
    load_s = time.perf_counter() - load_started
    token_lists = encoder.tokenize([encoder.passage_input(text) for text in passages])
    lengths = [len(ids) for ids in token_lists]
    started, cpu_started = time.perf_counter(), time.process_time()
    encoder.encode_token_ids(token_lists)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return {"load_s": round(load_s, 2), "seconds": round(seconds, 2),
            "passages_per_s": round(len(passages) / seconds, 2),
            "passages_per_cpu_s": round(len(passages) / cpu_seconds, 2),
            "mean_tokens": round(sum(lengths) / len(lengths), 1),
            "padding": round(padding_share(lengths, setting.batch_size, setting.bucketed), 4),
            "load_average": round(os.getloadavg()[0], 2)}


def static_rate(passages: Sequence[str], threads: int) -> dict | None:
    """The static model over the same passages (its own truncation: 512 tokens)."""
    from papersift.index.embeddings import make_encoder

    if not is_built(get_spec(STATIC_MODEL)):
        return None
    encoder = make_encoder(STATIC_MODEL, threads=threads)
    started = time.perf_counter()
    encoder.encode_passages(list(passages) * 4)  # a single pass is too short to time
    seconds = time.perf_counter() - started
    return {"passages_per_s": round(4 * len(passages) / seconds, 1), "load_average": round(os.getloadavg()[0], 2)}


def sweep(papers: Sequence[Paper], texts: int = 256, repeats: int = 2, settings: Sequence[Setting] = SETTINGS,
          log: Callable[[str], None] = print) -> dict:
    """Every setting once per repeat, in turn; per setting the median rate and the median ratio
    to the same repeat's baseline."""
    passages = sample_passages(papers, texts)
    settings = [s for s in settings if is_built(get_spec(s.model))]
    if BASELINE not in settings:
        settings = [BASELINE, *settings]
    runs: dict[Setting, list[dict]] = {setting: [] for setting in settings}
    for repeat in range(repeats):
        for setting in settings:
            result = run_setting(setting, passages)
            runs[setting].append(result)
            log(f"repeat {repeat + 1}: {setting.model} {setting.label}: {result['passages_per_s']} passages/s "
                f"(load {result['load_average']})")
    rows = []
    for setting, results in runs.items():
        ratios = [result["passages_per_s"] / base["passages_per_s"] for result, base in zip(results, runs[BASELINE])]
        rows.append({**asdict(setting), "label": setting.label, "passages": len(passages),
                     "passages_per_s": round(statistics.median(r["passages_per_s"] for r in results), 2),
                     "runs_passages_per_s": [r["passages_per_s"] for r in results],
                     "passages_per_cpu_s": round(statistics.median(r["passages_per_cpu_s"] for r in results), 2),
                     "ratio_to_baseline": round(statistics.median(ratios), 3),
                     "load_average": [r["load_average"] for r in results],
                     "load_s": round(statistics.median(r["load_s"] for r in results), 2),
                     "mean_tokens": results[0]["mean_tokens"], "padding": results[0]["padding"]})
    return {"passages": len(passages), "repeats": repeats, "settings": rows,
            "static": static_rate(passages, BASELINE.threads)}


def markdown(speed: dict) -> list[str]:
    lines = [f"## Transformer speed per setting ({speed['passages']} passages, {speed['repeats']} interleaved repeats)", "",
             ("Baseline: e5 fp32, 1 thread, graph optimization all, batch 32, sorted by length, 256 tokens. "
             "Ratio: median over repeats of the rate / the same repeat's baseline rate."), "",
             "| model | setting | passages/s | ratio | runs | per CPU-s | load avg | load s | mean tokens | padding |",
             "|---|---|---:|---:|---|---:|---|---:|---:|---:|"]
    for row in speed["settings"]:
        lines.append(f"| {row['model']} | {row['label']} | {row['passages_per_s']} | {row['ratio_to_baseline']:.2f} | "
                     f"{', '.join(str(v) for v in row['runs_passages_per_s'])} | {row.get('passages_per_cpu_s', '—')} | "
                     f"{', '.join(str(v) for v in row['load_average'])} | {row['load_s']} | {row['mean_tokens']} | "
                     f"{row['padding']:.1%} |")
    if speed.get("static"):
        lines += ["", (f"Static model over the same passages: {speed['static']['passages_per_s']} passages/s "
                      f"(load avg {speed['static']['load_average']}).")]
    return lines
