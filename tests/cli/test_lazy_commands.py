"""`papersift NAME ...` loads only the module(s) registering NAME (papersift.cli.COMMANDS)."""

from __future__ import annotations

import os
import subprocess
import sys

from papersift.cli import COMMAND_MODULES, COMMANDS, app, command_modules


def test_every_command_and_group_is_mapped_to_the_modules_registering_it():
    # with every module loaded (the app this test imports), who registers what
    registered: dict[str, set[str]] = {}
    for command in app.registered_commands:
        name = command.name or command.callback.__name__.replace("_", "-")
        registered.setdefault(name, set()).add(command.callback.__module__.rsplit(".", 1)[1])
    for group in app.registered_groups:
        modules = {command.callback.__module__.rsplit(".", 1)[1] for command in group.typer_instance.registered_commands}
        for sub in group.typer_instance.registered_groups:
            modules |= {command.callback.__module__.rsplit(".", 1)[1] for command in sub.typer_instance.registered_commands}
        registered.setdefault(group.name, set()).update(modules)
    assert {name: set(modules) for name, modules in COMMANDS.items()} == registered
    assert {module for modules in COMMANDS.values() for module in modules} == set(COMMAND_MODULES)


def test_only_the_cli_loads_one_command_module():
    assert command_modules(["/usr/bin/papersift", "search", "x"]) == ("search_cmd",)
    assert command_modules([os.path.join("site-packages", "papersift", "__main__.py"), "bench", "zhterms"]) == \
        ("bench_cmd", "serve_cmd")
    assert command_modules(["/usr/bin/papersift", "--help"]) == COMMAND_MODULES
    assert command_modules(["/usr/bin/papersift", "serach"]) == COMMAND_MODULES  # typer names the mistake
    assert command_modules(["pytest", "search"]) == COMMAND_MODULES  # not the CLI: the whole app


def test_a_search_from_the_command_line_loads_no_other_command(tmp_path):
    code = ("import sys; sys.argv = ['papersift', 'search', '--help']; import papersift.cli as cli; "
            "print(sorted(name for name in sys.modules if name.startswith('papersift.cli.') and name.endswith('_cmd'))); "
            "cli.main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    assert first == "['papersift.cli.search_cmd']"
    assert "--mode" in "\n".join(rest)  # the search command's own help: run by its name, as a group's command
