"""README and CLI stay in step: every command has help text and is documented."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from papersift.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
CI_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"


def command_paths(group, prefix: str = "") -> list[tuple[str, object]]:
    paths = []
    for name, command in group.commands.items():
        path = f"{prefix} {name}".strip()
        paths.append((path, command))
        if hasattr(command, "commands"):
            paths.extend(command_paths(command, path))
    return paths


def test_every_command_has_help_and_is_in_the_readme():
    readme = README.read_text(encoding="utf-8")
    click_group = typer.main.get_command(app)
    missing_help, undocumented = [], []
    for path, command in command_paths(click_group):
        if not (command.help or command.short_help):
            missing_help.append(path)
        if f"papersift {path}" not in readme:
            undocumented.append(path)
    assert not missing_help, f"commands without help text: {missing_help}"
    assert not undocumented, f"commands missing from README.md: {undocumented}"


def test_readme_starts_with_setup_and_main_job_then_the_ci_test_command():
    readme = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    setup_and_run, tests = blocks[0], blocks[1]
    assert "scripts/setup.sh" in setup_and_run and "papersift quickstart" in setup_and_run
    test_command = tests.strip().splitlines()[0]
    assert test_command in CI_SCRIPT.read_text(encoding="utf-8")
