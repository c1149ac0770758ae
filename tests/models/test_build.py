"""Building models: the ONNX graph against a numpy BERT, int8 quality, idempotence, unbuilt models."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from papersift.models import (
    DEFAULT_MODEL,
    QUERY_INT8,
    ModelError,
    build_model,
    get_spec,
    list_models,
    load_built,
)
from papersift.models.weights import read_weights

from .bert_reference import bert_mean_pool, run_onnx

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


@pytest.mark.models
def test_onnx_graph_matches_numpy_bert_including_padding(minilm_dir):
    built = load_built(MINILM, minilm_dir)
    weights, cfg = read_weights(get_spec(MINILM))
    ids, mask = _tokens(built.tokenizer_path, TEXTS)  # the short text is padded
    expected = bert_mean_pool(weights, cfg, ids, mask)
    actual = run_onnx(built.onnx_path("fp32"), ids, mask)
    np.testing.assert_allclose(actual, expected, atol=2e-4)
    assert np.allclose(np.linalg.norm(actual, axis=1), 1.0, atol=1e-5)


@pytest.mark.models
def test_int8_stays_close_to_fp32(minilm_dir):
    built = load_built(MINILM, minilm_dir)
    ids, mask = _tokens(built.tokenizer_path, TEXTS)
    cosine = np.sum(run_onnx(built.onnx_path("fp32"), ids, mask) * run_onnx(built.onnx_path("int8"), ids, mask), axis=1)
    assert cosine.min() > 0.9
    assert built.onnx_path("int8").stat().st_size < built.onnx_path("fp32").stat().st_size / 3


@pytest.mark.models
def test_build_is_idempotent(minilm_dir):
    built = load_built(MINILM, minilm_dir)
    stamp = built.onnx_path("int8").stat().st_mtime_ns
    messages = []
    build_model(MINILM, minilm_dir, log=messages.append)
    assert built.onnx_path("int8").stat().st_mtime_ns == stamp
    assert "up to date" in messages[0]
    listed = {row["name"]: row for row in list_models(minilm_dir)}
    assert listed[MINILM]["built"] and listed[DEFAULT_MODEL]["default"]


def test_an_unbuilt_model_says_how_to_build_it(tmp_path):
    with pytest.raises(ModelError, match="papersift models build"):
        load_built(MINILM, tmp_path)


@pytest.mark.models
def test_the_query_file_is_int8_per_channel_and_closer_to_fp32_than_the_int8_file(minilm_dir):
    built = load_built(MINILM, minilm_dir)
    ids, mask = _tokens(built.tokenizer_path, TEXTS)
    fp32 = run_onnx(built.onnx_path("fp32"), ids, mask)
    per_channel = np.sum(fp32 * run_onnx(built.onnx_path(QUERY_INT8), ids, mask), axis=1)
    per_tensor = np.sum(fp32 * run_onnx(built.onnx_path("int8"), ids, mask), axis=1)
    assert per_channel.min() > 0.99 and per_channel.min() > per_tensor.min()
    assert built.onnx_path(QUERY_INT8).stat().st_size < built.onnx_path("fp32").stat().st_size / 3


@pytest.mark.models
def test_an_up_to_date_build_without_the_query_file_gets_it_and_nothing_else_rebuilt(minilm_dir):
    built = load_built(MINILM, minilm_dir)
    stamps = {variant: built.onnx_path(variant).stat().st_mtime_ns for variant in ("fp32", "int8")}
    built.onnx_path(QUERY_INT8).unlink()
    messages = []
    build_model(MINILM, minilm_dir, log=messages.append)
    assert built.onnx_path(QUERY_INT8).is_file() and "added model.query-int8.onnx" in messages[0]
    assert {variant: built.onnx_path(variant).stat().st_mtime_ns for variant in ("fp32", "int8")} == stamps
