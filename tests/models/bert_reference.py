"""A plain numpy BERT forward pass with mean pooling: the reference the ONNX graph is checked against."""

from __future__ import annotations

import numpy as np
from scipy.special import erf


def _layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def bert_mean_pool(weights: dict, cfg, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unit-length mean-pooled last hidden states, computed step by step in float64."""
    w = {key: np.asarray(value, dtype=np.float64) for key, value in weights.items()}
    batch, length = ids.shape
    heads, head_dim = cfg.heads, cfg.hidden // cfg.heads
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], cfg.eps)
    bias = (1.0 - mask[:, None, None, :]) * -1e9
    for layer in range(cfg.layers):
        p = f"encoder.layer.{layer}."

        def dense(h, name, prefix=p):  # bound now: the layer's prefix, not the loop's last
            return h @ w[prefix + name + ".weight"].T + w[prefix + name + ".bias"]

        def split(h):
            return h.reshape(batch, length, heads, head_dim).transpose(0, 2, 1, 3)

        q, k, v = (split(dense(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head_dim) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, cfg.hidden)
        x = _layer_norm(x + dense(attended, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"], cfg.eps)
        hidden = dense(x, "intermediate.dense")
        hidden = 0.5 * hidden * (1 + erf(hidden / np.sqrt(2)))
        x = _layer_norm(x + dense(hidden, "output.dense"), w[p + "output.LayerNorm.weight"],
                        w[p + "output.LayerNorm.bias"], cfg.eps)
    m = mask[..., None].astype(np.float64)
    pooled = (x * m).sum(1) / m.sum(1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def run_onnx(path, ids, mask):
    """The `embedding` output of an ONNX file for (input_ids, attention_mask)."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]
