"""Static model distillation (models/static.py): the pure steps against references, a tiny real
build from the built e5 model, and the encoder's vectors against a plain sum of rows."""

from __future__ import annotations

import os

import numpy as np
import pytest
from sklearn.decomposition import PCA

from papersift import models
from papersift.index.embeddings import embed_papers, make_encoder, paper_text
from papersift.index.vectors import VectorIndex
from papersift.models.static import (
    StaticEncoder,
    build_static,
    hidden_state_session,
    pca_project,
    special_ids,
    token_outputs,
    zipf_weights,
)
from papersift.record import paper_from_dict


def test_pca_projection_matches_sklearn_up_to_the_sign_of_each_axis():
    rng = np.random.default_rng(7)
    outputs = (rng.normal(size=(300, 12)) @ rng.normal(size=(12, 12))).astype(np.float32)
    projected, kept = pca_project(outputs, 5)
    reference = PCA(n_components=5, svd_solver="full").fit(outputs)
    expected = reference.transform(outputs)
    signs = np.sign(np.sum(projected * expected, axis=0))
    np.testing.assert_allclose(projected * signs, expected, atol=1e-3)
    assert kept == pytest.approx(float(reference.explained_variance_ratio_.sum()), abs=1e-4)


def test_zipf_weights_fall_with_rank_and_stay_below_one():
    weights = zipf_weights(np.arange(5, 250_000))
    assert np.all(np.diff(weights) >= 0)  # a later (rarer) piece weighs at least as much
    assert 0 < weights[0] < 0.1 and 0.99 < weights[-1] < 1.0


@pytest.fixture(scope="module")
def fixture_papers(sample_records):
    return [paper_from_dict(record) for record in sample_records[:300]]


@pytest.fixture(scope="module")
def tiny_static_root(tmp_path_factory, fixture_papers):
    """A models dir holding the real built e5 (linked) and a static model distilled from it for
    the tokens of the fixture papers only (the full vocabulary takes minutes)."""
    from tokenizers import Tokenizer

    models.build_model(models.DEFAULT_MODEL, log=lambda _: None)  # no-op when already built
    root = tmp_path_factory.mktemp("static-models")
    os.symlink(models.models_dir() / models.DEFAULT_MODEL, root / models.DEFAULT_MODEL)
    tokenizer = Tokenizer.from_file(str(models.load_built(models.DEFAULT_MODEL).tokenizer_path))
    vocabulary: set[int] = set()
    for paper in fixture_papers:  # fewer tokens than the model's 256 axes: PCA keeps all variance
        ids = set(tokenizer.encode(paper_text(paper)).ids)
        if len(vocabulary | ids) > 240:
            break
        vocabulary |= ids
    vocabulary = sorted(vocabulary)
    build_static(models.get_spec(models.STATIC_MODEL), root, vocabulary=vocabulary, threads=1, log=lambda _: None)
    return root, vocabulary


@pytest.mark.models
def test_rows_are_the_weighted_pca_of_each_token_through_e5(tiny_static_root):
    root, vocabulary = tiny_static_root
    source = models.load_built(models.DEFAULT_MODEL, root)
    encoder = StaticEncoder(models.STATIC_MODEL, models_root=root)
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source.tokenizer_path))
    bos, eos = special_ids(tokenizer)
    tokens = np.array([token for token in vocabulary if token not in (bos, eos)], dtype=np.int64)
    session, hidden = hidden_state_session(source.onnx_path("fp32"), threads=1)
    outputs = token_outputs(session, hidden, tokens, bos, eos, batch_size=64)
    # the hidden state the session exposes is the one the graph pools: mean + L2 norm gives e5's output
    ids = np.array([[eos, tokens[0], bos]], dtype=np.int64)
    pooled, state = session.run(["embedding", hidden], {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    mean = state[0].mean(axis=0)
    np.testing.assert_allclose(pooled[0], mean / np.linalg.norm(mean), atol=1e-5)
    # fewer tokens than 256 axes: the projection keeps every direction, so unweighted rows have
    # the Gram matrix of the centred outputs
    unweighted = np.asarray(encoder.rows[tokens], dtype=np.float32) / zipf_weights(tokens)[:, None]
    centred = outputs - outputs.mean(axis=0)
    np.testing.assert_allclose(unweighted @ unweighted.T, centred @ centred.T, atol=2e-3)
    left_out = np.setdiff1d(np.arange(len(encoder.rows)), tokens)
    assert not np.asarray(encoder.rows[left_out[:5000]]).any()  # zero rows: no vector of their own
    assert models.is_built(models.get_spec(models.STATIC_MODEL), root)
    listed = {row["name"]: row for row in models.list_models(root)}
    assert listed[models.STATIC_MODEL]["built"] and listed[models.STATIC_MODEL]["distilled_from"] == models.DEFAULT_MODEL


@pytest.mark.models
def test_a_text_vector_is_the_normalised_sum_of_its_token_rows(tiny_static_root, fixture_papers):
    root, _ = tiny_static_root
    encoder = make_encoder(models.STATIC_MODEL, models_root=root)
    texts = [paper_text(paper) for paper in fixture_papers[:10]] + ["", "zzzz qqqq"]
    vectors = encoder.encode_passages(texts, batch_size=4)
    for text, vector in zip(texts, vectors):
        ids = encoder.tokenizer.encode(text, add_special_tokens=False).ids
        total = np.asarray(encoder.rows[ids], dtype=np.float32).sum(axis=0) if ids else np.zeros(encoder.dim)
        norm = np.linalg.norm(total)
        np.testing.assert_allclose(vector, total / norm if norm else total, atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors[:10], axis=1), 1.0, atol=1e-5)


@pytest.mark.models
def test_embed_publishes_a_static_generation_covering_every_paper(tiny_static_root, fixture_papers, tmp_path):
    root, _ = tiny_static_root
    encoder = make_encoder(models.STATIC_MODEL, models_root=root)
    summary = embed_papers(tmp_path, fixture_papers, encoder, last_seq=len(fixture_papers))
    assert summary.covered == len(fixture_papers) and summary.bridge_folder is None
    index = VectorIndex.open(tmp_path, models.STATIC_MODEL)
    assert index.meta.coverage == 1.0 and index.meta.dim == 256
    # a paper's own text finds the paper (the distilled tokens are the first papers')
    first = fixture_papers[0]
    best = index.search_ids(encoder.encode_passages([paper_text(first)])[0], 1)
    assert best[0][0] == first.id
    again = embed_papers(tmp_path, fixture_papers, encoder, last_seq=len(fixture_papers))
    assert again.embedded == 0 and again.cached == len(fixture_papers)
