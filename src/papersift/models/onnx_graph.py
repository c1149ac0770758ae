"""The ONNX graph of a BERT encoder, written with numpy + onnx (no torch): mean pooling and L2
normalisation inside the graph, so a session's output is the embedding."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from papersift.models.weights import BertConfig


def bert_onnx(weights: dict[str, np.ndarray], cfg: BertConfig):
    """A post-LayerNorm BERT encoder with mean pooling and L2 normalisation.

    Inputs input_ids / attention_mask (int64, [batch, seq]); output `embedding` [batch, hidden].
    """
    import onnx
    from onnx import TensorProto, numpy_helper
    from onnx import helper as oh

    initializers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []
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


def weight_node_names(onnx_path: Path) -> list[str]:
    """MatMul/Gather nodes that read a weight: only those are quantized (activation x activation
    products in attention stay fp32, which keeps int8 quality close to fp32)."""
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    weight_names = {init.name for init in model.graph.initializer}
    return [n.name for n in model.graph.node
            if (n.op_type == "MatMul" and n.input[1] in weight_names)
            or (n.op_type == "Gather" and n.input[0] in ("word", "pos"))]
