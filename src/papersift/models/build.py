"""Building a model: pinned weights -> ONNX files (fp32, then int8 by onnxruntime's dynamic
quantization: per tensor, and per channel for the query encoder) in models_dir()/<name>; a
static model is distilled by static.py. Finding built models is built.py's job.

Builds are idempotent: a model whose manifest matches its pinned inputs is not built again.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

from papersift import extras
from papersift.models.built import BuiltModel, is_built, manifest_expected
from papersift.models.onnx_graph import bert_onnx, weight_node_names
from papersift.models.packages import check_packages, sha256_file, verified
from papersift.models.registry import QUERY_INT8, get_spec, models_dir
from papersift.models.static import build_static
from papersift.models.weights import read_weights

QUERY_FILE = f"model.{QUERY_INT8}.onnx"


def quantize_query_encoder(fp32_path: Path, out_path: Path) -> Path:
    """The query encoder's int8 file: the weight-reading MatMul and Gather nodes quantized with one
    scale per output channel (per tensor, the int8 file, moved e5's query vectors to cosine 0.989
    with fp32 and its dense top-20 to 0.73 overlap; per channel 0.997 / 0.87)."""
    return quantize_int8(fp32_path, out_path, per_channel=True)


def quantize_int8(fp32_path: Path, out_path: Path, per_channel: bool = False) -> Path:
    """An int8 copy of an fp32 encoder: its weight-reading MatMul and Gather nodes quantized (one
    scale per tensor, or per output channel). Written under a temporary name and renamed, so a
    reader never opens half a file."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    partial = out_path.with_name(out_path.name + ".partial")
    quantize_dynamic(str(fp32_path), str(partial), weight_type=QuantType.QInt8, per_channel=per_channel,
                     op_types_to_quantize=["MatMul", "Gather"], nodes_to_quantize=weight_node_names(fp32_path),
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    os.replace(partial, out_path)
    return out_path


def build_model(name: str, root: str | os.PathLike | None = None, force: bool = False,
                log=print, threads: int | None = None) -> BuiltModel:
    """Build fp32 + int8 (+ the query encoder's per-channel int8) ONNX files for `name` under
    models_dir(root)/name (skipped if up to date, but for a missing query file, added); a static
    model is distilled from its source model, built first when it is not.

    Needs papersift[models] (MissingExtra otherwise) and the model's weight packages (ModelError)."""
    spec = get_spec(name)
    folder = models_dir(root) / spec.name
    if not force and is_built(spec, root):
        if not spec.distilled_from and not (folder / QUERY_FILE).is_file():
            extras.require("models", f"building {spec.name}'s query encoder")
            started = time.perf_counter()
            quantize_query_encoder(folder / "model.fp32.onnx", folder / QUERY_FILE)
            log(f"{spec.name}: added {QUERY_FILE} in {time.perf_counter() - started:.0f}s")
        log(f"{spec.name}: up to date in {folder}")
        return BuiltModel(spec, folder)
    if spec.distilled_from:
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

    onnx.save(bert_onnx(weights, cfg), str(tmp / "model.fp32.onnx"))
    del weights
    quantize_int8(tmp / "model.fp32.onnx", tmp / "model.int8.onnx")
    quantize_query_encoder(tmp / "model.fp32.onnx", tmp / QUERY_FILE)
    shutil.copyfile(tokenizer_src, tmp / "tokenizer.json")
    manifest = {**manifest_expected(spec), "spec": asdict(spec), "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": {f: sha256_file(tmp / f) for f in ("model.fp32.onnx", "model.int8.onnx", "tokenizer.json")}}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    log(f"{spec.name}: built in {time.perf_counter() - started:.0f}s -> {folder}")
    return BuiltModel(spec, folder)


