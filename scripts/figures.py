"""The figure tables of README.md and docs/benchmarks.md, generated from docs/figures.toml.

    python scripts/figures.py           # rewrite the tables in place
    python scripts/figures.py --check   # exit 1, naming each table that is not what the file generates

Each table sits between `<!-- figures:NAME -->` and `<!-- /figures:NAME -->`; NAME is a table
of docs/figures.toml (`readme`, `benchmarks_quality`, `benchmarks_speed`), whose cells name figures as {id}.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures.toml"
# table -> (the file it is in, its columns: (heading, key of a row), alignment row)
TABLES = {
    "readme": (ROOT / "README.md", [("capability", "capability"), ("measured", "measured"), ("bar", "bar")]),
    "benchmarks_quality": (ROOT / "docs" / "benchmarks.md",
                           [("what", "what"), ("command", "command"), ("latest figure", "figure"), ("details", "details")]),
    "benchmarks_speed": (ROOT / "docs" / "benchmarks.md",
                         [("what", "what"), ("command", "command"), ("latest figure", "figure"), ("details", "details")]),
}


def load(path: Path = FIGURES) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def shown(figure: dict) -> str:
    """The text a table prints for a figure."""
    return str(figure.get("shown", figure["value"]))


def render(figures: dict, name: str) -> str:
    """One table's markdown, every {id} replaced by that figure's shown text."""
    values = {key: shown(figure) for key, figure in figures["figures"].items()}
    columns = TABLES[name][1]
    lines = ["| " + " | ".join(heading for heading, _ in columns) + " |", "|" + "---|" * len(columns)]
    for row in figures[name]:
        lines.append("| " + " | ".join(row[key].format_map(values) for _, key in columns) + " |")
    return "\n".join(lines) + "\n"


def block(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- figures:{name} [^\n]*-->\n)(.*?)(<!-- /figures:{name} -->)", re.DOTALL)


def current(name: str) -> str | None:
    """The table as the file holds it now (None: its markers are missing)."""
    found = block(name).search(TABLES[name][0].read_text(encoding="utf-8"))
    return found.group(2) if found else None


def write(figures: dict) -> None:
    for name, (path, _) in TABLES.items():
        text = path.read_text(encoding="utf-8")
        table = render(figures, name)
        updated, count = block(name).subn(lambda match, table=table: match.group(1) + table + match.group(3), text)
        if count != 1:
            raise SystemExit(f"{path}: no <!-- figures:{name} ... --> ... <!-- /figures:{name} --> block")
        path.write_text(updated, encoding="utf-8")


def stale(figures: dict) -> list[str]:
    """The tables that are not what the figures file generates."""
    return [f"{TABLES[name][0].relative_to(ROOT)}: table {name}" for name in TABLES
            if current(name) != render(figures, name)]


def main(argv: list[str]) -> int:
    figures = load()
    if "--check" in argv:
        differing = stale(figures)
        for line in differing:
            print(f"{line} is not what docs/figures.toml generates: run python scripts/figures.py")
        return 1 if differing else 0
    write(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
