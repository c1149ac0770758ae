"""The model registry: names, specs, which variant a query encoder runs."""

from __future__ import annotations

import json

import pytest

from papersift.models import (
    DEFAULT_MODEL,
    QUERY_INT8,
    STATIC_MODEL,
    ModelError,
    built_files,
    get_spec,
    manifest_expected,
    query_variant,
)


def test_an_unknown_model_names_the_known_ones():
    with pytest.raises(ModelError, match="unknown model 'bge-m3'; known: multilingual-e5-small, all-MiniLM-L6-v2"):
        get_spec("bge-m3")


def _fake_build(root, name, with_query_file):
    """A models folder whose manifest says `name` is built, with empty files (no model is loaded)."""
    spec = get_spec(name)
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(manifest_expected(spec)))
    for file_name in built_files(spec):
        (folder / file_name).write_bytes(b"")
    if with_query_file:
        (folder / f"model.{QUERY_INT8}.onnx").write_bytes(b"")


def test_e5_queries_run_its_per_channel_int8_file_once_built(tmp_path):
    _fake_build(tmp_path, DEFAULT_MODEL, with_query_file=True)
    assert query_variant(DEFAULT_MODEL, tmp_path) == QUERY_INT8


def test_a_build_from_before_the_query_file_runs_queries_in_fp32(tmp_path):
    _fake_build(tmp_path, DEFAULT_MODEL, with_query_file=False)
    assert query_variant(DEFAULT_MODEL, tmp_path) == "fp32"


def test_models_whose_queries_run_their_passages_variant_or_static_need_no_query_file(tmp_path):
    _fake_build(tmp_path, "all-MiniLM-L6-v2", with_query_file=False)
    assert query_variant("all-MiniLM-L6-v2", tmp_path) == "fp32"  # its own file: passages are int8
    assert query_variant(STATIC_MODEL, tmp_path) == "static"
