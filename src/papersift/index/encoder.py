"""Text -> unit vectors with a built ONNX model (tokenizers + onnxruntime).

`Encoder` tokenizes, sorts texts by token count so each batch pads little, runs batches on
all cores and returns L2-normalised float32 rows in input order; `make_encoder` gives a built
model's encoder (a static model's, models/static.py, has the same interface).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence

import numpy as np

from papersift.config import cpu_threads
from papersift.models import DEFAULT_MODEL, get_spec
from papersift.models.encoder_base import BuiltModelEncoder
from papersift.record import Paper, paper_text

_SENTENCE_END = re.compile(r"[.!?]\s+")
MIN_TAIL_CHARS = 40


def tail_text(paper: Paper, read_chars: int) -> str | None:
    """The second chunk of a paper the model could not read whole: its title, then its abstract
    from the start of the sentence the first chunk cut (`read_chars`: how much of paper_text the
    first chunk read). None when little is left."""
    abstract = (paper.abstract or "").strip()
    cut = read_chars - (len(paper_text(paper)) - len(abstract))
    if not abstract or cut <= 0 or len(abstract) - cut < MIN_TAIL_CHARS:
        return None
    ends = [match.end() for match in _SENTENCE_END.finditer(abstract, 0, cut)]
    start = ends[-1] if ends else cut
    return f"{paper.title.strip()}. {abstract[start:]}"


def make_encoder(model: str = DEFAULT_MODEL, **options):
    """The encoder of a built model: models/static.py's StaticEncoder for a static model, else the
    ONNX transformer's Encoder (same interface; options as Encoder's)."""
    if get_spec(model).distilled_from:
        from papersift.models.static import StaticEncoder

        return StaticEncoder(model, **options)
    return Encoder(model, **options)


CUDA_PROVIDER = "CUDAExecutionProvider"
GPU_BATCH = 128  # a GPU wants wide batches (not measured: no GPU was lent; docs/semantic.md)
GRAPH_LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
                "all": "ORT_ENABLE_ALL"}  # graph_level -> onnxruntime GraphOptimizationLevel
DEVICES = ("auto", "cpu", "cuda")


def choose_providers(device: str = "auto", available: Sequence[str] | None = None) -> list[str]:
    """onnxruntime execution providers for `device`: "auto" takes CUDA when this onnxruntime has
    it (the `onnxruntime-gpu` build) and the CPU otherwise, "cpu" always the CPU, "cuda" insists
    on CUDA (an error naming the fix when it is missing). The CPU stays listed after CUDA so any
    node CUDA lacks still runs."""
    if device not in DEVICES:
        raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
    if available is None:
        import onnxruntime as ort

        available = ort.get_available_providers()
    if device == "cpu" or (device == "auto" and CUDA_PROVIDER not in available):
        return ["CPUExecutionProvider"]
    if CUDA_PROVIDER not in available:
        raise ValueError("device cuda: this onnxruntime has no CUDAExecutionProvider; "
                         "pip install 'papersift[gpu]' (onnxruntime-gpu) instead of onnxruntime")
    return [CUDA_PROVIDER, "CPUExecutionProvider"]


def session_options(threads: int, graph_level: str = "all", parallel: bool = False):
    """onnxruntime session options: `threads` for the operators, graph optimizations at
    `graph_level`, no spinning. `parallel` runs independent graph branches at once on two
    threads (a BERT graph is one chain, so it measured no faster: docs/semantic.md)."""
    import onnxruntime as ort

    if graph_level not in GRAPH_LEVELS:
        raise ValueError(f"graph_level must be one of {', '.join(GRAPH_LEVELS)}, not {graph_level!r}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 2 if parallel else 1
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, GRAPH_LEVELS[graph_level])
    options.execution_mode = ort.ExecutionMode.ORT_PARALLEL if parallel else ort.ExecutionMode.ORT_SEQUENTIAL
    # Waiting threads sleep instead of spinning: on a shared, busy machine spinning
    # burns the very cores the other thread needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


def padding_share(lengths: Sequence[int], batch_size: int, bucketed: bool = True) -> float:
    """Share of the tokens a run computes that are padding: each batch is as wide as its longest
    text. Bucketed = sorted by length first (what Encoder does), else in the given order."""
    order = sorted(lengths) if bucketed else list(lengths)
    computed = sum(len(batch) * max(batch) for batch in
                   (order[start:start + batch_size] for start in range(0, len(order), batch_size)))
    return 1 - sum(lengths) / computed if computed else 0.0


class Encoder(BuiltModelEncoder):
    """Embeds queries and passages with one built transformer (ONNX); safe to share between threads."""

    # CPU batch: 8 texts ran 1.24x faster than 32 per CPU-second (and in wall time in two
    # interleaved repeats): a batch's attention scores ([batch, 12 heads, 256, 256] floats,
    # 100 MB at 32) stop fitting the caches, and sorted batches of 8 pad 1.0% instead of 3.1%.
    BATCH = 8

    def __init__(self, model: str = DEFAULT_MODEL, variant: str | None = None,
                 models_root: str | os.PathLike | None = None, threads: int | None = None,
                 max_tokens: int | None = None, device: str = "auto", graph_level: str = "all",
                 parallel: bool = False, bucketed: bool = True,
                 batch_size: int | None = None):
        import onnxruntime as ort

        super().__init__(model, variant, models_root, max_tokens)
        options = session_options(threads or cpu_threads(), graph_level, parallel)
        self.session = ort.InferenceSession(str(self.built.onnx_path(self.variant)), options,
                                            providers=choose_providers(device))
        # onnxruntime-gpu lists CUDA even where its libraries (CUDA 12, cuDNN 9) are missing and
        # then falls back to the CPU: what the session got is what counts
        self.providers = list(self.session.get_providers())
        self.on_gpu = CUDA_PROVIDER in self.providers
        self.batch_size = batch_size or (GPU_BATCH if self.on_gpu else self.BATCH)
        self.bucketed = bucketed  # False only to measure what sorting by length saves
        self._lock = threading.Lock()

    def passage_chunks(self, papers: Sequence[Paper]) -> list[list[list[int]]]:
        """Token ids of each paper's passages: its first max_tokens, and for a paper the model
        cannot read whole, a second passage from the sentence it cut (title + rest). Measured on
        the dev halves (a paper scores by its best passage): known-item en hybrid 0.594 -> 0.622,
        SciFact e5 semantic 0.653 -> 0.673; known-item zh semantic 0.281 -> 0.238 (README)."""
        inputs = [self.passage_input(paper_text(paper)) for paper in papers]
        heads = self.tokenizer.encode_batch(inputs)
        chunks = [[head.ids] for head in heads]
        tails: list[tuple[int, str]] = []
        for position, (paper, head) in enumerate(zip(papers, heads)):
            if len(head.ids) >= self.max_tokens:
                read = max(end for _, end in head.offsets) - len(self.spec.passage_prefix)
                tail = tail_text(paper, read)
                if tail is not None:
                    tails.append((position, self.passage_input(tail)))
        for (position, _), encoding in zip(tails, self.tokenizer.encode_batch([text for _, text in tails])):
            chunks[position].append(encoding.ids)
        return chunks

    def encode_token_ids(self, token_lists: Sequence[Sequence[int] | np.ndarray], batch_size: int | None = None,
                         on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed token id lists in batches of similar length (padding: `padding_share`); rows come back
        in input order."""
        batch_size = batch_size or self.batch_size
        out = np.zeros((len(token_lists), self.dim), dtype=np.float32)
        lengths = [len(ids) for ids in token_lists]
        order = np.argsort(lengths, kind="stable") if self.bucketed else np.arange(len(token_lists))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            width = max(len(token_lists[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for slot, i in enumerate(rows):
                token_ids = token_lists[i]
                ids[slot, :len(token_ids)] = token_ids
                mask[slot, :len(token_ids)] = 1
            with self._lock:
                out[rows] = self.session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]
            if on_batch:
                on_batch(len(rows))
        return out
