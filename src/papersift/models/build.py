"""Building a model: pinned weights -> ONNX files (fp32, then int8 by onnxruntime's dynamic
quantization) in models_dir()/<name>, and finding built ones.

Builds are idempotent: a model whose manifest matches its pinned inputs is not built again.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from papersift import extras
from papersift.models.onnx_graph import bert_onnx, weight_node_names
from papersift.models.packages import check_packages, sha256_file, verified
from papersift.models.registry import DEFAULT_MODEL, MODELS, ModelError, ModelSpec, get_spec, models_dir
from papersift.models.weights import read_weights

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


def build_model(name: str, root: str | os.PathLike | None = None, force: bool = False,
                log=print, threads: int | None = None) -> BuiltModel:
    """Build fp32 + int8 ONNX files for `name` under models_dir(root)/name (skipped if up to date);
    a static model is distilled from its source model, built first when it is not.

    Needs papersift[models] (MissingExtra otherwise) and the model's weight packages (ModelError)."""
    spec = get_spec(name)
    folder = models_dir(root) / spec.name
    if not force and is_built(spec, root):
        log(f"{spec.name}: up to date in {folder}")
        return BuiltModel(spec, folder)
    if spec.distilled_from:
        from papersift.models.static import build_static

        build_model(spec.distilled_from, root, log=log)
        return build_static(spec, root, threads=threads, log=log)
    extras.require("models", f"building {spec.name}")
    check_packages(spec)
    started = time.perf_counter()
    weights, cfg = read_weights(spec)
    tokenizer_src = verified(spec.tokenizer)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    onnx.save(bert_onnx(weights, cfg), str(tmp / "model.fp32.onnx"))
    del weights
    quantize_dynamic(str(tmp / "model.fp32.onnx"), str(tmp / "model.int8.onnx"), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul", "Gather"], nodes_to_quantize=weight_node_names(tmp / "model.fp32.onnx"),
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    shutil.copyfile(tokenizer_src, tmp / "tokenizer.json")
    manifest = {**manifest_expected(spec), "spec": asdict(spec), "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": {f: sha256_file(tmp / f) for f in ("model.fp32.onnx", "model.int8.onnx", "tokenizer.json")}}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    log(f"{spec.name}: built in {time.perf_counter() - started:.0f}s -> {folder}")
    return BuiltModel(spec, folder)


def load_built(name: str = DEFAULT_MODEL, root: str | os.PathLike | None = None) -> BuiltModel:
    spec = get_spec(name)
    if not is_built(spec, root):
        raise ModelError(f"model {name} is not built in {models_dir(root)}; run `papersift models build`")
    return BuiltModel(spec, models_dir(root) / spec.name)


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
