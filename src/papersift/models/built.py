"""Finding built models: where a model's files are, whether its build is current (its manifest
matches the pinned inputs), and the list `papersift models list` shows. Building them is
build.py's job (transformers) and static.py's (distilled static models).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from papersift.models.registry import DEFAULT_MODEL, MODELS, ModelError, ModelSpec, get_spec, models_dir

BUILD_VERSION = 3  # bump when the graph layout changes, so old builds are rebuilt


@dataclass(frozen=True, slots=True)
class BuiltModel:
    spec: ModelSpec
    folder: Path

    def onnx_path(self, variant: str) -> Path:
        return self.folder / f"model.{variant}.onnx"

    @property
    def tokenizer_path(self) -> Path:
        return self.folder / "tokenizer.json"


def manifest_expected(spec: ModelSpec) -> dict:
    """What a built model's manifest must say for the build to be current."""
    return {"name": spec.name, "build_version": BUILD_VERSION, "weights_sha256": spec.weights.sha256,
            "tokenizer_sha256": spec.tokenizer.sha256, "dim": spec.dim}


def _read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def is_built(spec: ModelSpec, root: str | os.PathLike | None = None) -> bool:
    folder = models_dir(root) / spec.name
    manifest = _read_manifest(folder)
    if not manifest or {k: manifest.get(k) for k in manifest_expected(spec)} != manifest_expected(spec):
        return False
    return all((folder / name).is_file() for name in built_files(spec))


def built_files(spec: ModelSpec) -> tuple[str, ...]:
    if spec.distilled_from:
        return ("vectors.npy", "tokenizer.json")
    return ("model.fp32.onnx", "model.int8.onnx", "tokenizer.json")


def load_built(name: str = DEFAULT_MODEL, root: str | os.PathLike | None = None) -> BuiltModel:
    spec = get_spec(name)
    if not is_built(spec, root):
        raise ModelError(f"model {name} is not built in {models_dir(root)}; run `papersift models build`")
    return BuiltModel(spec, models_dir(root) / spec.name)


def query_variant(name: str, root: str | os.PathLike | None = None) -> str:
    """The variant a model's query encoder runs: its spec's query variant once built, else its
    passages' (a build from before QUERY_INT8 existed has no such file; `papersift models build`
    adds it)."""
    spec = get_spec(name)
    if spec.distilled_from or spec.query_variant == spec.default_variant:
        return spec.query_variant
    built = load_built(name, root)
    return spec.query_variant if built.onnx_path(spec.query_variant).is_file() else spec.default_variant


def list_models(root: str | os.PathLike | None = None) -> list[dict]:
    rows = []
    for spec in MODELS.values():
        folder = models_dir(root) / spec.name
        built = is_built(spec, root)
        rows.append({
            "name": spec.name, "default": spec.name == DEFAULT_MODEL, "dim": spec.dim, "languages": spec.languages,
            "weights_package": spec.weights.package, "tokenizer_package": spec.tokenizer.package,
            "built": built, "folder": str(folder),
            "distilled_from": spec.distilled_from or None,
            "size_mb": {name.split(".")[-2] if name.startswith("model.") else name.split(".")[0]:
                        round((folder / name).stat().st_size / 1e6, 1)
                        for name in built_files(spec) if name != "tokenizer.json"} if built else {},
        })
    return rows
