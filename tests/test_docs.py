"""Docs and CLI stay in step: every command has help text, docs/cli.md is the current
generated reference, and the README starts with the commands CI runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import typer.main

from papersift.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
CI_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"
CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
REGENERATE = [sys.executable, "-m", "typer", "papersift.cli", "utils", "docs", "--name", "papersift"]


def command_paths(group, prefix: str = "") -> list[tuple[str, object]]:
    paths = []
    for name, command in group.commands.items():
        path = f"{prefix} {name}".strip()
        paths.append((path, command))
        if hasattr(command, "commands"):
            paths.extend(command_paths(command, path))
    return paths


def test_every_command_has_help_text():
    click_group = typer.main.get_command(app)
    missing_help = [path for path, command in command_paths(click_group) if not (command.help or command.short_help)]
    assert not missing_help, f"commands without help text: {missing_help}"


def test_cli_reference_is_current(tmp_path):
    generated = tmp_path / "cli.md"
    subprocess.run([*REGENERATE, "--output", str(generated)], check=True, capture_output=True)
    assert generated.read_text(encoding="utf-8") == CLI_DOC.read_text(encoding="utf-8"), (
        "docs/cli.md is stale: regenerate it with " + " ".join(["python", *REGENERATE[1:], "--output", "docs/cli.md"]))


def test_every_command_is_in_the_cli_reference():
    reference = CLI_DOC.read_text(encoding="utf-8")
    undocumented = [path for path, _ in command_paths(typer.main.get_command(app))
                    if f"## `papersift {path}`" not in reference]
    assert not undocumented, f"commands missing from docs/cli.md: {undocumented}"


def test_readme_links_resolve():
    readme = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", readme)
    missing = [target for target in targets if not target.startswith("http") and not (README.parent / target).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_readme_starts_with_setup_and_main_job_then_the_ci_test_command():
    readme = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    setup_and_run, tests = blocks[0], blocks[1]
    assert "scripts/setup.sh" in setup_and_run and "papersift quickstart" in setup_and_run
    test_command = tests.strip().splitlines()[0]
    assert test_command in CI_SCRIPT.read_text(encoding="utf-8")
