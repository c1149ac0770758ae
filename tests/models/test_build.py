"""Building models: the ONNX graph against a numpy BERT, int8 quality, idempotence, unbuilt models."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from papersift.models import DEFAULT_MODEL, ModelError, build_model, get_spec, list_models, load_built
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
